import { beforeAll, describe, expect, it } from 'vitest'
import { until } from '@impact/service-kit/testing'
import { fileHarness, type TestUser } from '../support/harness.ts'
import { slowAnswer, type Script } from '../support/loopback-llm.ts'
import { openStream, streamMessage } from '../support/sse-client.ts'

describe('SSE streaming against an OpenAI-compatible model on loopback', () => {
  const t = fileHarness({
    LLM_API_KEY: 'sk-loopback',
    LLM_MODEL: 'loop-large',
    LLM_MODELS: 'loop-large,loop-small',
    BROWSER_TOOL_TIMEOUT_MS: '300',
    ACTION_TIMEOUT_MS: '300',
    SSE_HEARTBEAT_MS: '100'
  }, { llm: true, listen: true })
  let user: TestUser
  const names = (frames: Array<{ event: string }>) => frames.map((f) => f.event)
  beforeAll(async () => { user = await t.h.user() })

  it('streams content as message frames with X-Request-Id and ends with done', async () => {
    const id = await t.h.newSession(user.headers)
    t.llm.enqueue({ content: ['Hel', 'lo ', 'world'], reasoning: ['Thinking', '...'] })
    const headers = { ...user.headers, 'x-request-id': 'turn-abc', origin: 'https://portal.example' }
    const res = await streamMessage(t.base, id, headers, { message: 'hi' })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/)
    expect(res.headers.get('x-request-id')).toBe('turn-abc')
    expect(res.headers.get('access-control-expose-headers')).toContain('X-Request-Id')
    expect(res.text.startsWith(': heartbeat\n\n')).toBe(true)
    for (const block of res.text.split('\n\n').filter((b) => b.startsWith('event:'))) {
      const lines = block.split('\n')
      expect(lines).toHaveLength(2)
      expect(lines[1]).toMatch(/^data: \{.*\}$/)
    }
    expect(names(res.frames)).toEqual(['reasoning', 'reasoning', 'reasoning', 'message', 'message', 'message', 'done'])
    expect(res.frames.filter((f) => f.event === 'message').map((f) => f.data.content).join('')).toBe('Hello world')
    expect(res.frames[2]?.data).toMatchObject({ reasoning: '', isComplete: true, sessionId: id, requestId: 'turn-abc' })
    const request = t.llm.requests.at(-1)
    expect(request?.headers.authorization).toBe('Bearer sk-loopback')
    expect(request?.body).toMatchObject({ model: 'loop-large', stream: true })
    expect(request?.body.messages[0].role).toBe('system')
    const history = await t.h.transcript(user.headers, id)
    expect(history[1]).toMatchObject({ type: 'ai', content: 'Hello world', reasoning: 'Thinking...' })
    expect(res.frames.at(-1)?.data).toEqual({ messageId: history[1].id })
  })

  it('sends the model the conversation so far and the chosen model', async () => {
    const id = await t.h.newSession(user.headers)
    await streamMessage(t.base, id, user.headers, { message: 'first question' })
    await streamMessage(t.base, id, user.headers, { message: 'second question', model: 'loop-small' })
    const body = t.llm.requests.at(-1)?.body
    expect(body.model).toBe('loop-small')
    expect(body.messages.slice(1).map((m: { role: string, content: string }) => [m.role, m.content])).toEqual([
      ['user', 'first question'], ['assistant', 'Echo: first question'], ['user', 'second question']
    ])
  })

  it('sends the whole conversation when every message reuses one X-Request-Id', async () => {
    const id = await t.h.newSession(user.headers)
    const headers = { ...user.headers, 'x-request-id': 'one-id-for-all' }
    for (const message of ['one', 'two', 'three', 'four']) await streamMessage(t.base, id, headers, { message })
    const sent: Array<{ role: string, content: string }> = t.llm.requests.at(-1)?.body.messages.slice(1)
    expect(sent.map((m) => [m.role, m.content])).toEqual([
      ['user', 'one'], ['assistant', 'Echo: one'], ['user', 'two'], ['assistant', 'Echo: two'],
      ['user', 'three'], ['assistant', 'Echo: three'], ['user', 'four']
    ])
  })

  it('gives tool calls the model left unnamed ids of their own, even under one reused X-Request-Id', async () => {
    const id = await t.h.newSession(user.headers)
    const headers = { ...user.headers, 'x-request-id': 'one-id-for-tools' }
    const prefs = { id: '', name: 'set_user_preferences', args: { tone: 'warm' } }
    for (let i = 0; i < 2; i++) {
      t.llm.enqueue({ toolCalls: [prefs] }, { content: ['Saved.'] })
      await streamMessage(t.base, id, headers, { message: `use a warm tone (${i})` })
    }
    const sent: Array<{ role: string, tool_call_id?: string }> = t.llm.requests.at(-1)?.body.messages
    const ids = sent.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)
    expect(ids).toHaveLength(2)
    expect(new Set(ids).size).toBe(2)
  })

  it('sends a retried message once: the same request id and text as the newest turn replace it', async () => {
    const id = await t.h.newSession(user.headers)
    await streamMessage(t.base, id, user.headers, { message: 'first' })
    const retry = { ...user.headers, 'x-request-id': 'retry-1' }
    await streamMessage(t.base, id, retry, { message: 'second' })
    await streamMessage(t.base, id, retry, { message: 'second' })
    expect(t.llm.requests.at(-1)?.body.messages.slice(1).map((m: { content: string }) => m.content)).toEqual([
      'first', 'Echo: first', 'second'
    ])
  })

  it('runs a server tool the model calls and reports it as tool_call frames', async () => {
    const id = await t.h.newSession(user.headers)
    const call = { id: 'call_prefs', name: 'set_user_preferences', args: { agentName: 'Ava', formality: 'casual' } }
    t.llm.enqueue({ toolCalls: [call] }, { content: ['Saved.'] })
    const res = await streamMessage(t.base, id, user.headers, { message: 'call yourself Ava and be casual' })
    expect(names(res.frames)).toEqual(['tool_call', 'tool_call', 'message', 'done'])
    expect(res.frames[0]?.data).toMatchObject({
      toolName: 'set_user_preferences',
      status: 'isRunning',
      eventId: 'call_prefs',
      args: { agentName: 'Ava', formality: 'casual' }
    })
    expect(res.frames[1]?.data).toMatchObject({ status: 'done', eventId: 'call_prefs' })
    expect(res.frames[1]?.data.output).toMatch(/^Updated\. New preferences: /)
    const followUp = t.llm.requests.at(-1)?.body.messages
    expect(followUp.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_prefs' })
    const offered = t.llm.requests.at(-2)?.body.tools.map((t: { function: { name: string } }) => t.function.name)
    expect(offered).toContain('set_user_preferences')
    const prefs = await t.h.app.inject({ method: 'GET', url: '/user-preferences', headers: user.headers })
    expect(prefs.json()).toMatchObject({ agentName: 'Ava', formality: 'casual' })
  })

  it('tells the model a browser tool\'s outcome is unknown when no client answers in time', async () => {
    const id = await t.h.newSession(user.headers)
    const call = { id: 'call_page', name: 'read_page', args: { selector: 'h1' } }
    t.llm.enqueue({ toolCalls: [call] }, { content: ['I could not read it.'] })
    const res = await streamMessage(t.base, id, user.headers, {
      message: 'what does the page say?',
      tools: [{
        name: 'read_page',
        description: 'Reads the page',
        schema: { $schema: 'http://json-schema.org/draft-07/schema#' }
      }]
    })
    expect(names(res.frames)).toEqual(['tool_call', 'tool_call', 'message', 'done'])
    expect(res.frames[1]?.data).toMatchObject({ toolName: 'read_page', status: 'done', eventId: 'call_page' })
    expect(res.frames[1]?.data.output).toContain('outcome is unknown')
    const tool = t.llm.requests.at(-2)?.body.tools
      .find((t: { function: { name: string } }) => t.function.name === 'read_page')
    expect(tool.function.parameters).toEqual({ type: 'object', properties: {} })
  })

  it('hands a browser tool call to the client-tool port and continues with the client\'s result', async () => {
    const id = await t.h.newSession(user.headers)
    const unsubscribe = t.h.runtime.bus.subscribe({ sessionId: id }, (event) => {
      if (event.name === 'browser_tool_call') {
        expect(event.data).toMatchObject({ sessionId: id, toolCallId: 'call_title', toolName: 'page_title', args: {} })
        t.h.runtime.clientTools
          .resolve({ sessionId: id, toolCallId: 'call_title', result: { title: 'Impact Hub' } })
          .catch(() => {})
      }
    })
    try {
      const call = { id: 'call_title', name: 'page_title', args: {} }
      t.llm.enqueue({ toolCalls: [call] }, { content: ['It is Impact Hub.'] })
      const tools = [{ name: 'page_title', description: 'Title of the page', schema: { type: 'object' } }]
      const res = await streamMessage(t.base, id, user.headers, { message: 'title?', tools })
      expect(res.frames[1]?.data).toMatchObject({ status: 'done', output: '{"title":"Impact Hub"}' })
      expect(t.llm.requests.at(-1)?.body.messages.at(-1))
        .toMatchObject({ role: 'tool', content: '{"title":"Impact Hub"}' })
    } finally {
      unsubscribe()
    }
  })

  it('streams AG-UI actions as action_call frames', async () => {
    const id = await t.h.newSession(user.headers)
    const call = { id: 'call_chart', name: 'show_chart', args: { kind: 'bar' } }
    t.llm.enqueue({ toolCalls: [call] }, { content: ['Shown.'] })
    const res = await streamMessage(t.base, id, user.headers, {
      message: 'chart please',
      agActions: [{
        name: 'show_chart',
        description: 'Shows a chart',
        schema: { type: 'object', properties: { kind: { type: 'string' } } },
        hasRender: true
      }]
    })
    expect(names(res.frames)).toEqual(['action_call', 'action_call', 'message', 'done'])
    expect(res.frames[0]?.data).toMatchObject({
      sessionId: id,
      toolCallId: 'call_chart',
      toolName: 'show_chart',
      args: { kind: 'bar' },
      status: 'isRunning'
    })
    expect(res.frames[1]?.data).toMatchObject({ toolCallId: 'call_chart', status: 'done' })
  })

  const upstreamFailures = [
    ['an HTTP error', { status: 503, error: 'overloaded' }, /503: overloaded/],
    ['an error chunk', { chunkError: 'context too long', after: ['Par'] }, /context too long/],
    ['a dropped connection', { content: ['a', 'b', 'c'], breakAfter: 1 }, /stream/],
    ['a stream without an end', { content: ['a'], omitDone: true }, /ended before/]
  ] satisfies Array<[string, Script, RegExp]>
  it.each(upstreamFailures)('reports upstream failure (%s) as error then done', async (_name, script, pattern) => {
    const id = await t.h.newSession(user.headers)
    t.llm.enqueue(script)
    const res = await streamMessage(t.base, id, user.headers, { message: 'go' })
    expect(res.status).toBe(200)
    const tail = res.frames.slice(-2)
    expect(names(tail)).toEqual(['error', 'done'])
    expect(tail[0]?.data).toMatchObject({ kind: 'upstream', sessionId: id })
    expect(tail[0]?.data.error).toMatch(pattern)
    expect(tail[1]?.data).toMatchObject({ failed: true })
  })

  it('keeps concurrent streams apart even when clients reuse a request id', async () => {
    const other = await t.h.user()
    const mine = await t.h.newSession(user.headers)
    const theirs = (await t.h.app.inject({ method: 'POST', url: '/sessions', headers: other.headers })).json().sessionId
    const alpha = { content: Array.from({ length: 30 }, () => 'alpha '), delayMs: 10 }
    t.llm.enqueue(alpha, { content: ['bravo ', 'bravo'] })
    const slow = await openStream(t.base, mine, { ...user.headers, 'x-request-id': 'same-id' }, { message: 'a' })
    await slow.until('message')
    const fast = await streamMessage(t.base, theirs, { ...other.headers, 'x-request-id': 'same-id' }, { message: 'b' })
    expect(fast.frames.filter((f) => f.event === 'message').map((f) => f.data.content).join('')).toBe('bravo bravo')
    const { frames } = await slow.rest()
    expect(frames.filter((f) => f.event === 'message').map((f) => f.data.content).join('')).not.toContain('bravo')
    expect(frames.filter((f) => f.event === 'done')).toHaveLength(1)
  })

  it('does not pass the provider\'s credential errors on to users', async () => {
    const id = await t.h.newSession(user.headers)
    t.llm.enqueue({ status: 401, error: 'Incorrect API key provided: sk-lo****back' })
    const res = await streamMessage(t.base, id, user.headers, { message: 'go' })
    const error = res.frames.find((f) => f.event === 'error')?.data
    expect(error).toMatchObject({ status: 401, retryable: false })
    expect(error.error).not.toContain('sk-')
  })

  it('answers 502 with statusCode in the body when a JSON turn fails upstream', async () => {
    const id = await t.h.newSession(user.headers)
    t.llm.enqueue({ status: 500, error: 'boom' })
    const res = await t.h.send(user.headers, id, 'go')
    expect(res.statusCode).toBe(502)
    expect(res.json()).toMatchObject({ statusCode: 502, code: 'ORACLE_UPSTREAM_FAILED' })
  })

  it('aborts an in-flight stream through POST /messages/abort; the stream ends with done', async () => {
    const id = await t.h.newSession(user.headers)
    t.llm.enqueue(slowAnswer())
    const stream = await openStream(t.base, id, user.headers, { message: 'long answer' })
    await stream.until('message')
    const busy = await t.h.send(user.headers, id, 'meanwhile')
    expect(busy.statusCode).toBe(409)
    const abort = await t.h.app.inject({
      method: 'POST',
      url: '/messages/abort',
      headers: user.headers,
      payload: { sessionId: id }
    })
    expect(abort.json()).toEqual({ success: true })
    const { frames, text } = await stream.rest()
    expect(frames.at(-1)).toMatchObject({ event: 'done', data: { aborted: true } })
    expect(frames.filter((f) => f.event === 'message').length).toBeLessThan(200)
    expect(text).toContain(': heartbeat')
    const history = await t.h.transcript(user.headers, id)
    expect(history[1]).toMatchObject({ type: 'ai', metadata: { aborted: true } })
    expect((await t.h.send(user.headers, id, 'next')).statusCode).toBe(200)
  })

  it('cancels the turn and the upstream request when the client disconnects', async () => {
    const id = await t.h.newSession(user.headers)
    const before = t.llm.cancelled()
    t.llm.enqueue(slowAnswer())
    const stream = await openStream(t.base, id, user.headers, { message: 'long answer' })
    await stream.until('message')
    stream.disconnect()
    await until(() => t.llm.cancelled() > before)
    await until(() => t.h.runtime.turns.running === 0)
    const history = await t.h.transcript(user.headers, id)
    expect(history[1]?.metadata).toEqual({ aborted: true, disconnected: true })
  })

  it('refuses a stream before it opens with a normal JSON error', async () => {
    const res = await streamMessage(t.base, 's_nope', user.headers, { message: 'hi' })
    expect(res.status).toBe(404)
    expect(res.headers.get('content-type')).toMatch(/application\/json/)
  })
})
