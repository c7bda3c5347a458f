import { until } from '@impact/service-kit/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AppOptions } from '../../src/app.ts'
import { oracleProcesses, onServers, testSharedState, type Harness, type TestUser } from '../support/harness.ts'
import { startLoopbackLlm, type LoopbackLlm } from '../support/loopback-llm.ts'
import { severable } from '../support/severable.ts'
import { openStream } from '../support/sse-client.ts'
import { connectSocket } from '../support/socket-client.ts'
import { stovePlugin } from '../support/stove-plugin.ts'

describe('pending approvals across restarts and replicas', { timeout: 60_000 }, () => {
  const stoves = stovePlugin()
  let llm: LoopbackLlm
  const processes = oracleProcesses('oracle-approvals')

  /** One process of the oracle: same key, same database (a PGlite directory, or the PostgreSQL server). */
  const boot = async (key?: string, options: AppOptions = {}) => {
    const env: Record<string, string> = { LLM_BASE_URL: llm.url, TURN_OWNER_TTL_MS: '1000' }
    if (key !== undefined) env.ORACLE_PRIVATE_KEY = key
    return await processes(env, { plugins: [stoves.plugin], ...options })
  }
  const decide = async (h: Harness, user: TestUser, sessionId: string, toolCallId: string) =>
    await h.app.inject({
      method: 'POST', url: `/approvals/${toolCallId}`, headers: user.headers, payload: { sessionId, approved: true }
    })
  const history = async (h: Harness, user: TestUser, sessionId: string) =>
    (await h.app.inject({ method: 'GET', url: `/sessions/${sessionId}/messages`, headers: user.headers })).json()
  /** A session on `base` whose turn waits for approval of `register_stove` as call `id`. */
  const waiting = async (h: Harness, base: string, id: string) => {
    const user = await h.user()
    const sessionId = await h.newSession(user.headers)
    llm.enqueue({ toolCalls: [{ id, name: 'register_stove', args: { serial: id } }] })
    const stream = await openStream(base, sessionId, user.headers, { message: `register ${id}` })
    await stream.until('approval_request')
    return { user, sessionId, stream }
  }

  beforeAll(async () => { llm = await startLoopbackLlm() })
  afterAll(async () => { await llm?.close() })

  it('survives a restart of the process holding the turn: approving it resumes the turn there', async () => {
    const before = stoves.runs.length
    const first = await boot()
    const { user, sessionId, stream } = await waiting(first.h, first.base, 'call_restart')
    await first.h.app.close()
    const { frames } = await stream.rest()
    expect(frames.at(-1)).toMatchObject({ event: 'done', data: { awaitingApproval: true } })

    const second = await boot(first.h.oracleKey)
    const listed = await history(second.h, user, sessionId)
    expect(listed.pendingApprovals).toMatchObject([{ toolCallId: 'call_restart', status: 'pending' }])
    expect(listed.messages.map((m: { type: string }) => m.type)).toEqual(['human'])

    const socket = await connectSocket(second.base, {
      sessionId, auth: { invocation: user.invocation, ucanDelegation: user.delegation }
    })
    llm.enqueue({ content: ['Registered after the restart.'] })
    const approved = await decide(second.h, user, sessionId, 'call_restart')
    expect(approved.json()).toMatchObject({ status: 'approved' })
    expect(await socket.next('tool_call', (e) => e.payload.status === 'done')).toMatchObject({
      payload: { eventId: 'call_restart', output: 'registered call_restart' }
    })
    await socket.next('message_cache_invalidation')
    socket.disconnect()
    const page = await history(second.h, user, sessionId)
    expect(page.pendingApprovals).toEqual([])
    expect(page.messages).toMatchObject([
      { type: 'human', content: 'register call_restart' },
      {
        type: 'ai',
        content: 'Registered after the restart.',
        toolCalls: [{ id: 'call_restart', status: 'done', output: 'registered call_restart' }]
      }
    ])
    expect(stoves.runs.slice(before)).toEqual([{ serial: 'call_restart' }])
    await second.h.app.close()
  })

  it('ends a request the user passed over with a new message, keeping what the turn had done', async () => {
    const first = await boot()
    const { user, sessionId, stream } = await waiting(first.h, first.base, 'call_passed')
    await first.h.app.close()
    await stream.rest()
    const second = await boot(first.h.oracleKey)
    llm.enqueue({ content: ['Something else, then.'] })
    const reply = await second.h.send(user.headers, sessionId, 'never mind')
    expect(reply.json().message.content).toBe('Something else, then.')
    const messages: Array<{ tool_call_id?: string, content: string }> = llm.requests.at(-1)?.body.messages
    expect(messages.find((m) => m.tool_call_id === 'call_passed')?.content)
      .toBe('The user sent a new message instead of answering the approval request; register_stove was not run.')
    const page = await history(second.h, user, sessionId)
    expect(page.pendingApprovals).toEqual([])
    expect(page.messages.map((m: { type: string }) => m.type)).toEqual(['human', 'ai', 'human', 'ai'])
    expect((await decide(second.h, user, sessionId, 'call_passed')).statusCode).toBe(409)
    await second.h.app.close()
  })

  // Two live processes need a shared PostgreSQL and Redis: the server pass.
  describe.runIf(onServers)('with two replicas', () => {
    let state: ReturnType<typeof testSharedState>
    beforeAll(() => { state = testSharedState('oracle-approvals-replicas') })
    afterAll(async () => { await state?.drop() })

    it('wakes the turn waiting on replica A when the user approves through replica B', async () => {
      const before = stoves.runs.length
      const a = await boot(undefined, { sharedState: state.state })
      const b = await boot(a.h.oracleKey, { sharedState: state.state })
      const { user, sessionId, stream } = await waiting(a.h, a.base, 'call_remote')
      llm.enqueue({ content: ['Registered through the other replica.'] })
      expect((await decide(b.h, user, sessionId, 'call_remote')).statusCode).toBe(200)
      const { frames } = await stream.rest()
      expect(frames.find((f) => f.event === 'tool_call' && f.data.status === 'done')?.data.output)
        .toBe('registered call_remote')
      expect(frames.at(-1)).toMatchObject({ event: 'done', data: { messageId: expect.any(String) } })
      expect(stoves.runs.slice(before)).toEqual([{ serial: 'call_remote' }])
    })

    it('resumes on replica B when the process holding the turn died without a word', async () => {
      const before = stoves.runs.length
      const dying = severable(state.state)
      const a = await boot(undefined, { sharedState: dying.view })
      const b = await boot(a.h.oracleKey, { sharedState: state.state })
      const { user, sessionId } = await waiting(a.h, a.base, 'call_crash')
      dying.sever()
      // Its liveness mark lapses after TURN_OWNER_TTL_MS.
      await new Promise((resolve) => setTimeout(resolve, 1300))
      llm.enqueue({ content: ['Registered by the survivor.'] })
      expect((await decide(b.h, user, sessionId, 'call_crash')).statusCode).toBe(200)
      await until(async () => (await history(b.h, user, sessionId)).messages.length === 2, { timeout: 5000 })
      expect((await history(b.h, user, sessionId)).messages.at(-1)).toMatchObject({
        content: 'Registered by the survivor.',
        toolCalls: [{ id: 'call_crash', status: 'done' }]
      })
      expect(stoves.runs.slice(before)).toEqual([{ serial: 'call_crash' }])
    })
  })
})
