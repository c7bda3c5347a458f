import { Type } from '@sinclair/typebox'
import { beforeAll, describe, expect, it } from 'vitest'
import { fileHarness, testPlugin, type TestUser } from '../../support/harness.ts'
import { openStream } from '../../support/sse-client.ts'

const seen: { signal?: AbortSignal } = {}
const never = async (_args: unknown, context: { signal: AbortSignal }) => {
  seen.signal = context.signal
  return await new Promise(() => {})
}

/** Tools that never settle and ignore their abort signal, as a careless plugin might write them. */
const stuckPlugin = testPlugin({
  name: 'stuck',
  description: 'Test plugin: tools that never finish',
  setup: () => ({
    tools: [
      { name: 'stuck', description: 'Hangs', parameters: Type.Object({}), execute: never },
      { name: 'stuck_briefly', description: 'Hangs', parameters: Type.Object({}), timeoutMs: 150, execute: never },
      // Far beyond the test's own timeout: only the end of the turn can free it.
      { name: 'stuck_long', description: 'Hangs', parameters: Type.Object({}), timeoutMs: 600_000, execute: never }
    ],
    // Hooks that hang for the turns whose request id asks for it.
    async loadState (turn) {
      if (turn.requestId.startsWith('hang-state')) await never({}, turn)
      return { prompt: 'Stuck state.' }
    },
    onTurnEnd: async (turn) => { if (turn.requestId.startsWith('hang-end')) await never({}, turn) }
  })
})

describe('server tools that ignore the abort signal', () => {
  const t = fileHarness({ TOOL_TIMEOUT_MS: '300' }, { llm: true, listen: true, plugins: [stuckPlugin] })
  let user: TestUser
  /** The next message is accepted once the lease is free; a stuck session would answer 409 forever. */
  const acceptedSoon = async (id: string) => {
    for (let attempt = 0; attempt < 100; attempt++) {
      const res = await t.h.send(user.headers, id, 'next')
      if (res.statusCode !== 409) return res.statusCode
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    return 409
  }

  beforeAll(async () => { user = await t.h.user() })

  it('end at the tool\'s own deadline; the model is told it timed out and the turn completes', async () => {
    const id = await t.h.newSession(user.headers)
    const call = { id: 'call_brief', name: 'stuck_briefly', args: {} }
    t.llm.enqueue({ toolCalls: [call] }, { content: ['It timed out.'] })
    const res = await t.h.send(user.headers, id, 'run it')
    expect(res.statusCode).toBe(200)
    expect(res.json().message.content).toBe('It timed out.')
    const told = t.llm.requests.at(-1)?.body.messages.at(-1)
    expect(told).toMatchObject({ role: 'tool', tool_call_id: 'call_brief' })
    expect(told.content).toMatch(/did not finish within 0\.15 s/)
    expect(seen.signal?.aborted).toBe(true)
    const stored = await t.h.transcript(user.headers, id)
    expect(stored[1].toolCalls[0]).toMatchObject({ name: 'stuck_briefly', status: 'error' })
    expect((await t.h.send(user.headers, id, 'next')).statusCode).toBe(200)
  })

  it('end at TOOL_TIMEOUT_MS when the tool sets no deadline', async () => {
    const id = await t.h.newSession(user.headers)
    t.llm.enqueue({ toolCalls: [{ id: 'call_default', name: 'stuck', args: {} }] }, { content: ['Gave up.'] })
    expect((await t.h.send(user.headers, id, 'go')).json().message.content).toBe('Gave up.')
    expect(t.llm.requests.at(-1)?.body.messages.at(-1).content).toMatch(/did not finish within 0\.3 s/)
  })

  it('leave out plugin state that does not load within TOOL_TIMEOUT_MS', async () => {
    const id = await t.h.newSession(user.headers)
    const headers = { ...user.headers, 'x-request-id': 'hang-state-1' }
    const res = await t.h.app.inject({ method: 'POST', url: `/messages/${id}`, headers, payload: { message: 'hi' } })
    expect(res.json().message.content).toBe('Echo: hi')
    expect(t.llm.requests.at(-1)?.body.messages[0].content).not.toContain('Stuck state.')
    expect((await t.h.send(user.headers, id, 'again')).statusCode).toBe(200)
    expect(t.llm.requests.at(-1)?.body.messages[0].content).toContain('Stuck state.')
  })

  it('answer although a plugin\'s onTurnEnd never settles', async () => {
    const id = await t.h.newSession(user.headers)
    const headers = { ...user.headers, 'x-request-id': 'hang-end-1' }
    const res = await t.h.app.inject({ method: 'POST', url: `/messages/${id}`, headers, payload: { message: 'hi' } })
    expect(res.json().message.content).toBe('Echo: hi')
    expect((await t.h.send(user.headers, id, 'next')).statusCode).toBe(200)
  })

  it('end the turn on abort, and the session takes the next message', async () => {
    const id = await t.h.newSession(user.headers)
    t.llm.enqueue({ toolCalls: [{ id: 'call_stuck', name: 'stuck_long', args: {} }] })
    const stream = await openStream(t.base, id, user.headers, { message: 'run it' })
    await stream.until('tool_call')
    expect((await t.h.send(user.headers, id, 'meanwhile')).statusCode).toBe(409)
    const abort = { method: 'POST' as const, url: '/messages/abort', headers: user.headers, payload: { sessionId: id } }
    expect((await t.h.app.inject(abort)).json()).toEqual({ success: true })
    const { frames } = await stream.rest()
    expect(frames.at(-1)).toMatchObject({ event: 'done', data: { aborted: true } })
    expect(await acceptedSoon(id)).toBe(200)
  })

  it('end the turn when the client disconnects, and the lease is released', async () => {
    const id = await t.h.newSession(user.headers)
    t.llm.enqueue({ toolCalls: [{ id: 'call_gone', name: 'stuck_long', args: {} }] })
    const stream = await openStream(t.base, id, user.headers, { message: 'run it' })
    await stream.until('tool_call')
    stream.disconnect()
    expect(await acceptedSoon(id)).toBe(200)
    const stored = await t.h.transcript(user.headers, id)
    expect(stored[1]).toMatchObject({ type: 'ai', metadata: { aborted: true, disconnected: true } })
  })
})
