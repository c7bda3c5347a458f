import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { fileHarness, type TestUser } from '../support/harness.ts'
import { openStream } from '../support/sse-client.ts'
import { connectSocket, type TestSocket } from '../support/socket-client.ts'
import { stovePlugin } from '../support/stove-plugin.ts'

const stoves = stovePlugin()
const OPERATOR = 'operator-token-0123456789abcdef'
const registerCall = (id: string, serial = 'ST-1') =>
  ({ toolCalls: [{ id, name: 'register_stove', args: { serial } }] })

describe('POST /approvals/:toolCallId', () => {
  const t = fileHarness({ ORACLE_OPERATOR_TOKEN: OPERATOR }, { llm: true, listen: true, plugins: [stoves.plugin] })
  let alice: TestUser
  let bob: TestUser
  const sockets: TestSocket[] = []

  const decide = async (user: TestUser, toolCallId: string, payload: Record<string, unknown>) =>
    await t.h.app.inject({ method: 'POST', url: `/approvals/${toolCallId}`, headers: user.headers, payload })
  const history = async (user: TestUser, sessionId: string) =>
    (await t.h.app.inject({ method: 'GET', url: `/sessions/${sessionId}/messages`, headers: user.headers })).json()
  const toolResultSent = (id: string) =>
    t.llm.requests.at(-1)?.body.messages.find((m: { tool_call_id?: string }) => m.tool_call_id === id)?.content
  /** A session of `user` whose turn is waiting for approval of `register_stove` (call `id`). */
  const waiting = async (user: TestUser, id: string, serial = 'ST-1') => {
    const sessionId = await t.h.newSession(user.headers)
    t.llm.enqueue(registerCall(id, serial), { content: ['Done.'] })
    const stream = await openStream(t.base, sessionId, user.headers, { message: `register ${serial}` })
    const frames = await stream.until('approval_request')
    return { sessionId, stream, request: frames.find((f) => f.event === 'approval_request')?.data }
  }

  beforeAll(async () => { [alice, bob] = [await t.h.user(), await t.h.user()] })
  afterEach(() => { for (const socket of sockets.splice(0)) socket.disconnect() })

  it('pauses the turn on a tool that changes state, and approving runs the tool once and resumes it', async () => {
    const before = stoves.runs.length
    const sessionId = await t.h.newSession(alice.headers)
    const socket = await connectSocket(t.base, {
      sessionId, auth: { invocation: alice.invocation, ucanDelegation: alice.delegation }
    })
    sockets.push(socket)
    t.llm.enqueue(registerCall('call_ok', 'ST-7'), { content: ['Your stove ST-7 is registered.'] })
    const stream = await openStream(t.base, sessionId, alice.headers, { message: 'register ST-7' })
    const requestId = stream.response.headers.get('x-request-id')
    const asked = (await stream.until('approval_request')).find((f) => f.event === 'approval_request')?.data
    expect(asked).toMatchObject({
      toolCallId: 'call_ok',
      sessionId,
      requestId,
      toolName: 'register_stove',
      args: { serial: 'ST-7' },
      summary: 'Register the stove ST-7 in your name',
      status: 'pending'
    })
    expect(Date.parse(asked.expiresAt) - Date.parse(asked.createdAt)).toBe(300_000)
    expect(stoves.runs.length).toBe(before)
    expect(await socket.next('approval_request')).toEqual({
      eventName: 'approval_request',
      payload: expect.objectContaining({ toolCallId: 'call_ok', status: 'pending', sessionId, requestId })
    })
    expect((await history(alice, sessionId)).pendingApprovals).toEqual([asked])

    const approved = await decide(alice, 'call_ok', { sessionId, approved: true })
    expect(approved.statusCode).toBe(200)
    expect(approved.json()).toMatchObject({ toolCallId: 'call_ok', status: 'approved' })
    const { frames } = await stream.rest()
    expect(frames.map((f) => f.event)).toEqual([
      'approval_request', 'approval_request', 'tool_call', 'tool_call', 'message', 'done'
    ])
    expect(frames[1]?.data).toMatchObject({ toolCallId: 'call_ok', status: 'approved' })
    expect(frames[3]?.data).toMatchObject({ eventId: 'call_ok', status: 'done', output: 'registered ST-7' })
    expect(stoves.runs.slice(before)).toEqual([{ serial: 'ST-7' }])
    expect(stoves.prechecks.filter((p) => p.serial === 'ST-7')).toHaveLength(1)
    expect(toolResultSent('call_ok')).toBe('registered ST-7')

    const page = await history(alice, sessionId)
    expect(page.pendingApprovals).toEqual([])
    expect(page.messages.at(-1)).toMatchObject({
      type: 'ai',
      content: 'Your stove ST-7 is registered.',
      toolCalls: [{ id: 'call_ok', name: 'register_stove', status: 'done', output: 'registered ST-7' }]
    })
    const again = await decide(alice, 'call_ok', { sessionId, approved: false })
    expect(again.statusCode).toBe(409)
    expect(again.json()).toMatchObject({ code: 'ORACLE_APPROVAL_CLOSED', message: expect.stringContaining('approved') })
    expect(stoves.runs.length).toBe(before + 1)
  })

  it('gives the model the user\'s reason when they decline, and never runs the tool', async () => {
    const before = stoves.runs.length
    const { sessionId, stream } = await waiting(alice, 'call_no')
    const denied = await decide(alice, 'call_no', { sessionId, approved: false, reason: 'not my stove' })
    expect(denied.json()).toMatchObject({ status: 'denied', reason: 'not my stove' })
    const { frames } = await stream.rest()
    expect(frames.find((f) => f.event === 'tool_call')?.data).toMatchObject({
      eventId: 'call_no',
      status: 'error',
      output: 'The user declined: not my stove. register_stove was not run.'
    })
    expect(frames.at(-1)?.event).toBe('done')
    expect(toolResultSent('call_no')).toBe('The user declined: not my stove. register_stove was not run.')
    expect(stoves.runs.length).toBe(before)
    // The decision is in the audit trail, the user's own words are not.
    const headers = { authorization: `Bearer ${OPERATOR}` }
    const audit = await t.h.app.inject({ url: '/audit?action=approval.decided', headers })
    const entry = audit.json().items.find((item: { subject: string }) => item.subject === 'call_no')
    expect(entry).toMatchObject({ actor: alice.did, details: { approved: false, sessionId, tool: 'register_stove' } })
    expect(JSON.stringify(entry)).not.toContain('not my stove')
  })

  it('ends a call its precheck refuses before asking the user, and tells the model why', async () => {
    const before = stoves.runs.length
    const sessionId = await t.h.newSession(alice.headers)
    t.llm.enqueue({
      toolCalls: [
        { id: 'call_pre_refused', name: 'register_stove', args: { serial: 'revoked-1' } },
        { id: 'call_pre_broken', name: 'register_stove', args: { serial: 'broken-1' } }
      ]
    }, { content: ['Neither stove can be registered.'] })
    const stream = await openStream(t.base, sessionId, alice.headers, { message: 'register both' })
    const { frames } = await stream.rest()
    expect(frames.map((f) => f.event)).toEqual(['tool_call', 'tool_call', 'message', 'done'])
    expect(frames[0]?.data).toMatchObject({
      eventId: 'call_pre_refused', status: 'error', output: '{"error":"stove_revoked","serial":"revoked-1"}'
    })
    expect(frames[1]?.data).toMatchObject({
      eventId: 'call_pre_broken', status: 'error', output: 'Error: the stove registry is offline'
    })
    expect(frames[3]?.data).not.toHaveProperty('failed')
    expect(toolResultSent('call_pre_refused')).toBe('{"error":"stove_revoked","serial":"revoked-1"}')
    expect(toolResultSent('call_pre_broken')).toBe('Error: the stove registry is offline')
    expect(stoves.runs.length).toBe(before)
    const page = await history(alice, sessionId)
    expect(page.pendingApprovals).toEqual([])
    expect(page.messages.at(-1)).toMatchObject({
      content: 'Neither stove can be registered.',
      toolCalls: [{ id: 'call_pre_refused', status: 'error' }, { id: 'call_pre_broken', status: 'error' }]
    })
  })

  it('answers 404 to another user and for an unknown call, 400 for a malformed decision', async () => {
    const { sessionId, stream } = await waiting(alice, 'call_mine')
    expect((await decide(bob, 'call_mine', { sessionId, approved: true })).statusCode).toBe(404)
    const bobs = await t.h.newSession(bob.headers)
    const crossed = await decide(bob, 'call_mine', { sessionId: bobs, approved: true })
    expect(crossed.statusCode).toBe(404)
    expect(crossed.json().code).toBe('ORACLE_APPROVAL_NOT_FOUND')
    expect((await decide(alice, 'call_unknown', { sessionId, approved: true })).statusCode).toBe(404)
    expect((await decide(alice, 'call_mine', { sessionId, approved: 'yes' })).statusCode).toBe(400)
    expect((await decide(alice, 'call_mine', { sessionId, approved: true, extra: 1 })).statusCode).toBe(400)
    const unauthenticated = await t.h.app.inject({
      method: 'POST', url: '/approvals/call_mine', payload: { sessionId, approved: true }
    })
    expect(unauthenticated.statusCode).toBe(401)
    expect((await history(alice, sessionId)).pendingApprovals).toMatchObject([{ toolCallId: 'call_mine' }])
    await decide(alice, 'call_mine', { sessionId, approved: false })
    await stream.rest()
  })

  it('keeps waiting when the stream drops: the reconnected client lists the request and approves it', async () => {
    const before = stoves.runs.length
    const { sessionId, stream } = await waiting(alice, 'call_drop', 'ST-9')
    stream.disconnect()
    await new Promise((resolve) => setTimeout(resolve, 100))
    const legacy = await t.h.app.inject({ method: 'GET', url: `/messages/${sessionId}`, headers: alice.headers })
    expect(legacy.json().pendingApprovals).toMatchObject([{ toolCallId: 'call_drop', status: 'pending' }])
    expect((await history(alice, sessionId)).pendingApprovals).toMatchObject([{ toolCallId: 'call_drop' }])

    const socket = await connectSocket(t.base, {
      sessionId, auth: { invocation: alice.invocation, ucanDelegation: alice.delegation }
    })
    sockets.push(socket)
    expect((await decide(alice, 'call_drop', { sessionId, approved: true })).statusCode).toBe(200)
    expect(await socket.next('tool_call', (e) => e.payload.status === 'done')).toMatchObject({
      payload: { eventId: 'call_drop', output: 'registered ST-9' }
    })
    await socket.next('message_cache_invalidation')
    expect(stoves.runs.slice(before)).toEqual([{ serial: 'ST-9' }])
    const page = await history(alice, sessionId)
    expect(page.pendingApprovals).toEqual([])
    expect(page.messages.at(-1)).toMatchObject({ type: 'ai', content: 'Done.' })
  })

  it('is listed in the OpenAPI document with its body, answers and errors', async () => {
    const spec = (await t.h.app.inject({ method: 'GET', url: '/docs/json' })).json()
    const route = spec.paths['/approvals/{toolCallId}'].post
    expect(Object.keys(route.responses).sort()).toEqual(expect.arrayContaining(['200', '400', '401', '404', '409']))
    expect(route.requestBody.content['application/json'].schema.required).toEqual(['sessionId', 'approved'])
    expect(spec.paths['/sessions/{id}/messages'].get.responses['200'].content['application/json'].schema.properties)
      .toHaveProperty('pendingApprovals')
  })

  it('cancels the request when the user aborts the turn', async () => {
    const { sessionId, stream } = await waiting(alice, 'call_abort')
    const aborted = await t.h.app.inject({
      method: 'POST', url: '/messages/abort', headers: alice.headers, payload: { sessionId }
    })
    expect(aborted.json()).toEqual({ success: true })
    const { frames } = await stream.rest()
    expect(frames.filter((f) => f.event === 'approval_request').map((f) => f.data.status))
      .toEqual(['pending', 'cancelled'])
    expect(frames.at(-1)).toMatchObject({ event: 'done', data: { aborted: true } })
    expect((await decide(alice, 'call_abort', { sessionId, approved: true })).statusCode).toBe(409)
  })
})

describe('an approval nobody answers', () => {
  const t = fileHarness({ APPROVAL_TIMEOUT_MS: '1000' }, { llm: true, listen: true, plugins: [stoves.plugin] })

  it('times out: the model is told, the tool never runs, and a late decision is refused', async () => {
    const user = await t.h.user()
    const before = stoves.runs.length
    const sessionId = await t.h.newSession(user.headers)
    t.llm.enqueue(registerCall('call_late'), { content: ['No answer, so nothing was registered.'] })
    const stream = await openStream(t.base, sessionId, user.headers, { message: 'register' })
    const { frames } = await stream.rest()
    expect(frames.filter((f) => f.event === 'approval_request').map((f) => f.data.status))
      .toEqual(['pending', 'expired'])
    const messages: Array<{ tool_call_id?: string, content: string }> = t.llm.requests.at(-1)?.body.messages
    expect(messages.find((m) => m.tool_call_id === 'call_late')?.content)
      .toBe('Approval timed out: the user did not answer within 1 s, so register_stove was not run.')
    expect(stoves.runs.length).toBe(before)
    const late = await t.h.app.inject({
      method: 'POST', url: '/approvals/call_late', headers: user.headers, payload: { sessionId, approved: true }
    })
    expect(late.statusCode).toBe(409)
    expect(late.json().message).toContain('expired')
  })
})
