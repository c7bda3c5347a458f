import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { OracleEvent, OracleClientOptions } from '../src/index.ts'
import { clientFor, startRuntime, testUser, type RealRuntime } from './support/runtime.ts'

const pageTitle = {
  name: 'get_page_title',
  description: 'The title of the page the user has open',
  schema: { type: 'object', properties: {} },
  handler: () => 'Example page'
}

describe('streamed messages against a real oracle runtime', () => {
  let runtime: RealRuntime
  const client = async (extra: Partial<OracleClientOptions> = {}) => clientFor(runtime, await testUser(), extra)

  beforeAll(async () => { runtime = await startRuntime() })
  afterAll(async () => { await runtime?.close() })

  it('streams reasoning, the answer chunk by chunk and done, as typed events named by the wire', async () => {
    const c = await client()
    const { sessionId } = await c.createSession()
    const seen: OracleEvent[] = []
    const stream = await c.streamMessage(sessionId, { message: 'hello stream' }, { onEvent: (e) => seen.push(e) })
    const iterated: string[] = []
    for await (const event of stream) iterated.push(event.eventName)
    const result = await stream.done
    expect(iterated).toEqual(seen.map((e) => e.eventName))
    expect(iterated[0]).toBe('reasoning')
    expect(iterated.at(-1)).toBe('done')
    expect(iterated.filter((n) => n === 'message').length).toBeGreaterThan(5)
    expect(result).toMatchObject({ outcome: 'completed', sessionId, requestId: stream.requestId, errors: [] })
    expect(result.content).toBe(seen.flatMap((e) => e.eventName === 'message' ? [e.payload.content] : []).join(''))
    expect(result.content).toMatch(/^Hi! You said: "hello stream"/)
    expect(result.reasoning).toMatch(/Matching the message/)
    const history = await c.getHistory(sessionId)
    expect(history.messages.at(-1)).toMatchObject({ id: result.messageId, type: 'ai', content: result.content })
  })

  it('folds tool calls from isRunning to done', async () => {
    const c = await client()
    const { sessionId } = await c.createSession()
    const stream = await c.streamMessage(sessionId, { message: 'call yourself Ava' })
    const statuses: string[] = []
    stream.on((e) => { if (e.eventName === 'tool_call') statuses.push(e.payload.status) })
    const result = await stream.done
    expect(statuses).toEqual(['isRunning', 'done'])
    expect(result.toolCalls).toEqual([
      expect.objectContaining({ toolName: 'set_user_preferences', status: 'done', args: { agentName: 'Ava' } })
    ])
    expect(result.toolCalls[0]?.output).toMatch(/^Updated\. New preferences/)
  })

  it('aborts a turn in flight: the server stops it, the stream ends aborted, the session goes on', async () => {
    const c = await client()
    const { sessionId } = await c.createSession()
    // The agent waits for a browser tool nobody answers (no socket), so the turn stays open.
    const stream = await c.streamMessage(sessionId, { message: 'get_page_title please', browserTools: [pageTitle] })
    for await (const event of stream) if (event.eventName === 'tool_call') break
    const result = await stream.abort()
    expect(result.outcome).toBe('aborted')
    expect(result.toolCalls[0]).toMatchObject({
      toolName: 'get_page_title',
      output: 'The turn was aborted before the frontend answered.'
    })
    expect((await c.sendMessage(sessionId, { message: 'still there?' })).message.content).toContain('still there?')
  })

  it('aborts through an AbortSignal', async () => {
    const c = await client()
    const { sessionId } = await c.createSession()
    const controller = new AbortController()
    const stream = await c.streamMessage(
      sessionId,
      { message: 'get_page_title', browserTools: [pageTitle] },
      { signal: controller.signal }
    )
    stream.on((e) => {
      if (e.eventName === 'tool_call') controller.abort()
    })
    expect((await stream.done).outcome).toBe('aborted')
    expect((await c.abort(sessionId)).success).toBe(false)
  })

  it('cuts a stream that goes silent and reports it disconnected', async () => {
    const c = await client({ streamIdleTimeoutMs: 300 })
    const { sessionId } = await c.createSession()
    const stream = await c.streamMessage(sessionId, { message: 'get_page_title', browserTools: [pageTitle] })
    expect((await stream.done).outcome).toBe('disconnected')
  })

  it('refuses a second message while one is answered, before any stream opens', async () => {
    const c = await client()
    const { sessionId } = await c.createSession()
    const first = await c.streamMessage(sessionId, { message: 'get_page_title', browserTools: [pageTitle] })
    await expect(c.streamMessage(sessionId, { message: 'me too' })).rejects.toMatchObject({
      status: 409,
      code: 'ORACLE_TURN_IN_PROGRESS'
    })
    await first.abort()
  })
})
