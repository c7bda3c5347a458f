import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHarness, type Harness, type TestUser } from './support/harness.ts'
import { slowAnswer, startLoopbackLlm, type LoopbackLlm } from './support/loopback-llm.ts'
import { openStream, streamMessage } from './support/sse-client.ts'

const servers = (process.env.DATABASE_URL ?? '') !== '' && (process.env.REDIS_URL ?? '') !== ''

// Two replicas need a shared database and a shared Redis: this runs in the server pass.
describe.skipIf(!servers)('two replicas on one PostgreSQL and one Redis', () => {
  let llm: LoopbackLlm
  let a: Harness
  let b: Harness
  let user: TestUser
  let baseA: string

  beforeAll(async () => {
    llm = await startLoopbackLlm()
    const env = { LLM_BASE_URL: llm.url, BROWSER_TOOL_TIMEOUT_MS: '5000' }
    a = await createHarness(env)
    b = await createHarness({ ...env, ORACLE_PRIVATE_KEY: a.oracleKey }, {}, a.shared)
    baseA = await a.app.listen({ host: '127.0.0.1', port: 0 })
    user = await a.user()
  })
  afterAll(async () => {
    await b?.close()
    await a?.close()
    await llm?.close()
  })

  it('share sessions, identity and history', async () => {
    expect(b.oracleDid).toBe(a.oracleDid)
    const id = (await a.app.inject({ method: 'POST', url: '/sessions', headers: user.headers })).json().sessionId
    expect((await b.app.inject({ method: 'GET', url: `/messages/${id}`, headers: user.headers })).statusCode).toBe(200)
  })

  it('aborts a stream running on replica A through replica B', async () => {
    const id = (await a.app.inject({ method: 'POST', url: '/sessions', headers: user.headers })).json().sessionId
    llm.enqueue(slowAnswer())
    const stream = await openStream(baseA, id, user.headers, { message: 'long' })
    await stream.until('message')
    const url = `/messages/${id}`
    const busy = await b.app.inject({ method: 'POST', url, headers: user.headers, payload: { message: 'meanwhile' } })
    expect(busy.statusCode).toBe(409)
    const abort = await b.app.inject({
      method: 'POST',
      url: '/messages/abort',
      headers: user.headers,
      payload: { sessionId: id }
    })
    expect(abort.json()).toEqual({ success: true })
    const { frames } = await stream.rest()
    expect(frames.at(-1)).toMatchObject({ event: 'done', data: { aborted: true } })
  })

  it('ends a stream running on replica A when replica B deletes its session', async () => {
    const id = (await a.app.inject({ method: 'POST', url: '/sessions', headers: user.headers })).json().sessionId
    llm.enqueue(slowAnswer())
    const stream = await openStream(baseA, id, user.headers, { message: 'long' })
    await stream.until('message')
    const removed = await b.app.inject({ method: 'DELETE', url: `/sessions/${id}`, headers: user.headers })
    expect(removed.statusCode).toBe(200)
    const { frames } = await stream.rest()
    expect(frames.slice(-2)).toMatchObject([
      { event: 'error', data: { kind: 'not_found' } },
      { event: 'done', data: { aborted: true } }
    ])
    const url = `/messages/${id}`
    const late = await a.app.inject({ method: 'POST', url, headers: user.headers, payload: { message: 'late' } })
    expect(late.json()).toMatchObject({ statusCode: 404, code: 'ORACLE_SESSION_NOT_FOUND' })
  })

  it('delivers a browser tool result given to replica B to the turn waiting on replica A', async () => {
    const id = (await a.app.inject({ method: 'POST', url: '/sessions', headers: user.headers })).json().sessionId
    const unsubscribe = a.runtime.bus.subscribe({ sessionId: id }, (event) => {
      if (event.name !== 'browser_tool_call') return
      b.runtime.clientTools.resolve({ sessionId: id, toolCallId: 'call_x', result: 'from B' }).catch(() => {})
    })
    try {
      llm.enqueue({ toolCalls: [{ id: 'call_x', name: 'where', args: {} }] }, { content: ['ok'] })
      const tools = [{ name: 'where', description: 'Where am I', schema: {} }]
      const res = await streamMessage(baseA, id, user.headers, { message: 'where?', tools })
      expect(res.frames[1]?.data).toMatchObject({ status: 'done', output: 'from B' })
    } finally {
      unsubscribe()
    }
  })

  it('invalidates the preferences cache on every replica after a write', async () => {
    const u = await a.user()
    expect((await b.app.inject({ method: 'GET', url: '/user-preferences', headers: u.headers })).body).toBe('null')
    const setTone = { id: 'call_p', name: 'set_user_preferences', args: { tone: 'warm' } }
    llm.enqueue({ toolCalls: [setTone] }, { content: ['ok'] })
    const id = (await a.app.inject({ method: 'POST', url: '/sessions', headers: u.headers })).json().sessionId
    await a.app.inject({ method: 'POST', url: `/messages/${id}`, headers: u.headers, payload: { message: 'be warm' } })
    const preferences = await b.app.inject({ method: 'GET', url: '/user-preferences', headers: u.headers })
    expect(preferences.json()).toMatchObject({ tone: 'warm' })
  })
})
