import { Type } from '@sinclair/typebox'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { fileHarness, testPlugin, type TestUser } from '../../support/harness.ts'
import { openStream, streamMessage } from '../../support/sse-client.ts'
import { connectSocket, type TestSocket } from '../../support/socket-client.ts'

/** A plugin whose server tool renders a component and reports a routing step, as real plugins do. */
const chartPlugin = testPlugin({
  name: 'test-charts',
  description: 'Renders charts in the client',
  setup: () => ({
    tools: [
      {
        name: 'show_chart',
        description: 'Shows a chart to the user',
        parameters: Type.Object({ metric: Type.String() }),
        execute: async (args: { metric: string }, context) => {
          context.emit('router_update', { step: 'Routing to the charts agent' })
          context.emit('render_component', {
            componentName: 'Chart',
            args: { metric: args.metric },
            status: 'done',
            eventId: 'chart-1'
          })
          return 'chart shown'
        }
      }
    ]
  })
}, { visibility: 'always' })

const readPage = {
  name: 'read_page',
  description: 'Reads the open page',
  schema: { type: 'object', properties: { selector: { type: 'string' } } }
}
const openModal = {
  name: 'open_modal',
  description: 'Opens a modal',
  schema: { type: 'object', properties: { id: { type: 'number' } } },
  hasRender: true
}

describe('browser tools and AG-UI actions round trip over socket.io with the loopback model', () => {
  const t = fileHarness({ BROWSER_TOOL_TIMEOUT_MS: '1000', ACTION_TIMEOUT_MS: '1000' }, {
    llm: true, listen: true, plugins: [chartPlugin]
  })
  let alice: TestUser
  let bob: TestUser
  const sockets: TestSocket[] = []
  const connect = async (user: TestUser, sessionId: string) => {
    const socket = await connectSocket(t.base, {
      sessionId,
      userDid: user.did,
      auth: { invocation: user.invocation, ucanDelegation: user.delegation }
    })
    sockets.push(socket)
    return socket
  }
  const toolMessage = (requestIndex: number, id: string) =>
    t.llm.requests[requestIndex]?.body.messages.find(
      (m: { role: string, tool_call_id?: string }) => m.role === 'tool' && m.tool_call_id === id
    )?.content

  beforeAll(async () => { [alice, bob] = [await t.h.user(), await t.h.user()] })
  afterEach(() => { for (const socket of sockets.splice(0)) socket.disconnect() })

  it('runs a browser tool on the session\'s socket and continues the turn with its result', async () => {
    const id = await t.h.newSession(alice.headers)
    const socket = await connect(alice, id)
    socket.on('browser_tool_call', (call: { toolCallId: string, sessionId: string }) => {
      socket.emit('tool_result', { toolCallId: call.toolCallId, sessionId: call.sessionId, result: { title: 'Hello' } })
    })
    t.llm.enqueue(
      { toolCalls: [{ id: 'call_b1', name: 'read_page', args: { selector: 'h1' } }] },
      { content: ['The title is Hello'] }
    )
    const res = await streamMessage(t.base, id, alice.headers, { message: 'what is the title?', tools: [readPage] })
    const requestId = res.headers.get('x-request-id')

    expect(res.frames.map((f) => f.event)).toEqual(['tool_call', 'tool_call', 'message', 'done'])
    expect(res.frames[0]?.data).toMatchObject({
      toolName: 'read_page',
      status: 'isRunning',
      eventId: 'call_b1',
      requestId
    })
    expect(res.frames[1]?.data).toMatchObject({ status: 'done', output: '{"title":"Hello"}', eventId: 'call_b1' })
    expect(toolMessage(t.llm.requests.length - 1, 'call_b1')).toBe('{"title":"Hello"}')

    expect(await socket.next('browser_tool_call')).toEqual({
      sessionId: id,
      requestId,
      toolCallId: 'call_b1',
      toolName: 'read_page',
      args: { selector: 'h1' }
    })
    await socket.next('message_cache_invalidation')
    expect(socket.events.map((e) => e.event)).toEqual([
      'connected',
      'tool_call',
      'browser_tool_call',
      'tool_call',
      'message_cache_invalidation'
    ])
    expect(socket.events[1]?.data).toEqual({
      eventName: 'tool_call',
      payload: expect.objectContaining({ sessionId: id, requestId, status: 'isRunning', eventId: 'call_b1' })
    })
    expect(socket.events[4]?.data).toEqual({
      eventName: 'message_cache_invalidation',
      payload: { sessionId: id, requestId, status: 'done' }
    })
  })

  it('shows the tool call on the SSE stream while the browser is still working on it', async () => {
    const id = await t.h.newSession(alice.headers)
    const socket = await connect(alice, id)
    t.llm.enqueue({ toolCalls: [{ id: 'call_slow', name: 'read_page', args: {} }] }, { content: ['done'] })
    const stream = await openStream(t.base, id, alice.headers, { message: 'read it', tools: [readPage] })
    const call = await socket.next('browser_tool_call')
    const early = await stream.until('tool_call')
    expect(early.at(-1)?.data).toMatchObject({ status: 'isRunning', eventId: 'call_slow' })
    socket.emit('tool_result', { toolCallId: call.toolCallId, result: 'late answer' })
    const { frames } = await stream.rest()
    expect(frames.find((f) => f.event === 'tool_call' && f.data.status === 'done')?.data.output).toBe('late answer')
  })

  it('reports a browser tool failure to the model as an error', async () => {
    const id = await t.h.newSession(alice.headers)
    const socket = await connect(alice, id)
    socket.on('browser_tool_call', (call: { toolCallId: string, sessionId: string }) => {
      socket.emit('tool_result', {
        toolCallId: call.toolCallId,
        sessionId: call.sessionId,
        result: null,
        error: 'Tool read_page not found'
      })
    })
    t.llm.enqueue({ toolCalls: [{ id: 'call_err', name: 'read_page', args: {} }] }, { content: ['Sorry'] })
    const res = await streamMessage(t.base, id, alice.headers, { message: 'read', tools: [readPage] })
    expect(res.frames[1]?.data).toMatchObject({
      status: 'error',
      error: 'Tool read_page not found',
      eventId: 'call_err'
    })
    expect(toolMessage(t.llm.requests.length - 1, 'call_err')).toBe('Error: Tool read_page not found')
  })

  it('runs an AG-UI action on the session\'s socket, raw and once, and continues with its result', async () => {
    const id = await t.h.newSession(alice.headers)
    const socket = await connect(alice, id)
    socket.on('action_call', (call: { toolCallId: string, sessionId: string }) => {
      socket.emit('action_call_result', {
        sessionId: call.sessionId,
        toolCallId: call.toolCallId,
        result: { success: true, opened: 7 }
      })
    })
    t.llm.enqueue({ toolCalls: [{ id: 'call_a1', name: 'open_modal', args: { id: 7 } }] }, { content: ['Opened.'] })
    const res = await streamMessage(t.base, id, alice.headers, { message: 'open modal 7', agActions: [openModal] })
    const requestId = res.headers.get('x-request-id')

    expect(res.frames.map((f) => f.event)).toEqual(['action_call', 'action_call', 'message', 'done'])
    expect(res.frames[0]?.data).toEqual({
      sessionId: id,
      requestId,
      toolCallId: 'call_a1',
      toolName: 'open_modal',
      args: { id: 7 },
      status: 'isRunning'
    })
    expect(res.frames[1]?.data).toMatchObject({
      toolCallId: 'call_a1',
      status: 'done',
      output: '{"success":true,"opened":7}'
    })
    expect(toolMessage(t.llm.requests.length - 1, 'call_a1')).toBe('{"success":true,"opened":7}')
    await socket.next('message_cache_invalidation')
    expect(socket.events.filter((e) => e.event === 'action_call').map((e) => e.data)).toEqual([res.frames[0]?.data])
  })

  it('tells the model the outcome is unknown when the frontend does not answer in time', async () => {
    const id = await t.h.newSession(alice.headers)
    const socket = await connect(alice, id)
    t.llm.enqueue(
      { toolCalls: [{ id: 'call_t1', name: 'read_page', args: {} }] },
      { toolCalls: [{ id: 'call_t2', name: 'open_modal', args: { id: 1 } }] },
      { content: ['I could not confirm it.'] }
    )
    const res = await streamMessage(t.base, id, alice.headers, {
      message: 'try both',
      tools: [readPage],
      agActions: [openModal]
    })
    await socket.next('browser_tool_call')
    await socket.next('action_call')
    const unknown = /did not report a result for (read_page|open_modal) within 1 s, so the outcome is unknown/
    expect(res.frames.find((f) => f.event === 'tool_call' && f.data.status === 'done')?.data.output).toMatch(unknown)
    expect(res.frames.find((f) => f.event === 'action_call' && f.data.status === 'done')?.data.output).toMatch(unknown)
    expect(toolMessage(t.llm.requests.length - 1, 'call_t1')).toMatch(unknown)
    expect(toolMessage(t.llm.requests.length - 1, 'call_t2')).toMatch(unknown)
    expect(res.frames.at(-1)?.event).toBe('done')
  })

  it('accepts results only from a socket authenticated into the session', async () => {
    const id = await t.h.newSession(alice.headers)
    const aliceSocket = await connect(alice, id)
    const bobSocket = await connect(bob, await t.h.newSession(bob.headers))
    t.llm.enqueue({ toolCalls: [{ id: 'call_x', name: 'read_page', args: {} }] }, { content: ['ok'] })
    const stream = await openStream(t.base, id, alice.headers, { message: 'read', tools: [readPage] })
    const call = await aliceSocket.next('browser_tool_call')
    await bobSocket.none('browser_tool_call', 20)

    expect(
      await bobSocket.emitWithAck('tool_result', { toolCallId: call.toolCallId, sessionId: id, result: 'forged' })
    ).toEqual({
      ok: false,
      error: 'Results are accepted only for the sessions this connection joined',
      code: 'ORACLE_WS_FORBIDDEN_SESSION'
    })
    // Without a sessionId the result counts for bob's own session, where no such call waits.
    expect(await bobSocket.emitWithAck('tool_result', { toolCallId: call.toolCallId, result: 'forged' })).toEqual({
      ok: true
    })
    expect(await aliceSocket.emitWithAck('tool_result', { toolCallId: call.toolCallId, result: 'genuine' })).toEqual({
      ok: true
    })
    const { frames } = await stream.rest()
    expect(frames.find((f) => f.event === 'tool_call' && f.data.status === 'done')?.data.output).toBe('genuine')
  })

  it('forwards what plugins emit during a turn (render_component, router_update) to the ' +
    "session's sockets", async () => {
    const id = await t.h.newSession(alice.headers)
    const socket = await connect(alice, id)
    t.llm.enqueue(
      { toolCalls: [{ id: 'call_c', name: 'show_chart', args: { metric: 'co2' } }] },
      { content: ['Here it is.'] }
    )
    const res = await streamMessage(t.base, id, alice.headers, { message: 'chart co2' })
    const requestId = res.headers.get('x-request-id')
    expect(await socket.next('router_update')).toEqual({
      eventName: 'router_update',
      payload: { step: 'Routing to the charts agent', sessionId: id, requestId }
    })
    expect(await socket.next('render_component')).toEqual({
      eventName: 'render_component',
      payload: {
        componentName: 'Chart',
        args: { metric: 'co2' },
        status: 'done',
        eventId: 'chart-1',
        sessionId: id,
        requestId
      }
    })
    expect(res.frames.some((f) => f.event === 'render_component')).toBe(false)
  })

  it('invalidates the message cache after a failed turn too (the user message was stored)', async () => {
    const id = await t.h.newSession(alice.headers)
    const socket = await connect(alice, id)
    t.llm.enqueue({ status: 500, error: 'provider down' })
    const res = await streamMessage(t.base, id, alice.headers, { message: 'hello?' })
    expect(res.frames.map((f) => f.event)).toEqual(['error', 'done'])
    expect(await socket.next('message_cache_invalidation')).toMatchObject({
      payload: { sessionId: id, status: 'done' }
    })
  })
})
