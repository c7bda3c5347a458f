import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mintInvocation } from '@impact/ucan'
import {
  defineAgAction,
  defineBrowserTool,
  OracleClient,
  type OracleEvent,
  type OracleSocket
} from '../src/index.ts'
import { startRuntime, testUser, withSession, type RealRuntime } from './support/runtime.ts'

const nowS = () => Math.floor(Date.now() / 1000)

describe('session socket against the runtime\'s socket.io gateway', () => {
  let runtime: RealRuntime
  const sockets: OracleSocket[] = []
  const open = (
    client: OracleClient,
    sessionId: string,
    options: Parameters<OracleClient['connectSocket']>[1] = {}
  ) => {
    const socket = client.connectSocket(sessionId, { reconnection: false, ...options })
    sockets.push(socket)
    return socket
  }

  beforeAll(async () => {
    runtime = await startRuntime({ BROWSER_TOOL_TIMEOUT_MS: '5000', ACTION_TIMEOUT_MS: '5000' })
  })
  afterAll(async () => {
    for (const socket of sockets) socket.close()
    await runtime?.close()
  })

  it('joins the session with the HTTP credentials and answers the diagnostics', async () => {
    const { client, sessionId } = await withSession(runtime)
    const events: OracleEvent[] = []
    const socket = open(client, sessionId, { onEvent: (e) => events.push(e) })
    await socket.ready()
    await expect.poll(() => events.map((e) => e.eventName), { timeout: 10_000 }).toContain('connected')
    expect(events[0]).toMatchObject({ eventName: 'connected', source: 'socket', payload: { sessionId } })
    expect(await socket.ping()).toMatchObject({ sessionId })
    expect(await socket.status()).toMatchObject({ connected: true, sessionId })
    expect((await socket.listEvents()).clientEvents).toEqual(
      expect.arrayContaining(['ping', 'status', 'subscribe', 'list-events', 'tool_result', 'action_call_result'])
    )
  })

  it('connects with a bare delegation when there is no invocation callback', async () => {
    const { client, sessionId } = await withSession(runtime, { createInvocation: undefined })
    await open(client, sessionId).ready()
  })

  it('re-mints a refused invocation once and connects', async () => {
    const user = await testUser()
    let stale = 1
    const { client, sessionId } = await withSession(runtime, {
      createInvocation: async ({ oracleDid }) =>
        stale-- > 0
          ? await mintInvocation({ issuer: user.signer, audience: oracleDid, expiration: nowS() - 60 })
          : await user.createInvocation({ oracleDid })
    }, user)
    // The HTTP call above used (and replaced) the stale one; make the socket meet a stale invocation too.
    stale = 1
    client.transport.credentials.invalidate('invocation')
    await open(client, sessionId).ready()
    expect(user.minted.invocation).toBe(2)
  })

  it('is refused for a session that is not the user\'s, without retrying forever', async () => {
    const { client } = await withSession(runtime)
    const errors: Error[] = []
    const socket = open(client, 's_not-mine', { onError: (e) => errors.push(e) })
    await expect(socket.ready(5000)).rejects.toThrow(/refused or closed/)
    expect(errors.at(-1)).toMatchObject({ code: 'ORACLE_SESSION_NOT_FOUND' })
    expect(socket.state).toBe('disconnected')
  })

  it('runs a browser tool the agent calls and returns its result to the turn', async () => {
    const { client, sessionId } = await withSession(runtime)
    const calls: unknown[] = []
    const pageTitle = defineBrowserTool<{ verbose?: boolean }, string>({
      name: 'get_page_title',
      description: 'The title of the page the user has open',
      schema: { type: 'object', properties: { verbose: { type: 'boolean' } } },
      handler: (args, context) => { calls.push({ args, context }); return 'Example page' }
    })
    const socketEvents: OracleEvent[] = []
    await open(client, sessionId, { browserTools: [pageTitle], onEvent: (e) => socketEvents.push(e) }).ready()
    const stream = await client.streamMessage(sessionId, {
      message: 'get_page_title {"verbose":true}',
      browserTools: [pageTitle]
    })
    const result = await stream.done
    expect(calls).toEqual([
      {
        args: { verbose: true },
        context: expect.objectContaining({ sessionId, requestId: stream.requestId, toolName: 'get_page_title' })
      }
    ])
    expect(result.toolCalls).toEqual([
      expect.objectContaining({ toolName: 'get_page_title', status: 'done', output: 'Example page' })
    ])
    expect(result.content).toContain('get_page_title: Example page')
    expect(socketEvents.map((e) => e.eventName)).toEqual(expect.arrayContaining(['browser_tool_call', 'tool_call']))
    await expect
      .poll(
        () =>
          socketEvents.some(
            (e) => e.eventName === 'message_cache_invalidation' && e.payload.requestId === stream.requestId
          ),
        { timeout: 10_000 }
      )
      .toBe(true)
  })

  it('reports a failing or unknown browser tool as the tool\'s error', async () => {
    const { client, sessionId } = await withSession(runtime)
    const broken = defineBrowserTool({
      name: 'read_clipboard',
      description: 'Reads the clipboard',
      schema: { type: 'object' },
      handler: () => {
        throw new Error('clipboard permission denied')
      }
    })
    await open(client, sessionId, { browserTools: [broken] }).ready()
    const failing = await (
      await client.streamMessage(sessionId, { message: 'read_clipboard', browserTools: [broken] })
    ).done
    expect(failing.toolCalls[0]).toMatchObject({ status: 'error', error: 'clipboard permission denied' })
    const ghost = { ...broken, name: 'not_registered' }
    const unknown = await (
      await client.streamMessage(sessionId, { message: 'not_registered', browserTools: [ghost] })
    ).done
    expect(unknown.toolCalls[0]).toMatchObject({ status: 'error', error: 'Browser tool not_registered not found' })
  })

  it('runs an AG-UI action and answers action_call_result', async () => {
    const { client, sessionId } = await withSession(runtime)
    const notice = defineAgAction<{ text: string }, { shown: boolean }, string>({
      name: 'show_notice',
      description: 'Shows a notice to the user',
      schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      handler: ({ text }) => ({ shown: text === 'hi' }),
      render: ({ args, status }) => `${status}: ${args.text}`
    })
    await open(client, sessionId, { agActions: [notice] }).ready()
    const result = await (
      await client.streamMessage(sessionId, { message: 'show_notice {"text":"hi"}', agActions: [notice] })
    ).done
    expect(result.actionCalls).toEqual([
      expect.objectContaining({ toolName: 'show_notice', status: 'done', output: '{"shown":true}' })
    ])
    expect(result.content).toContain('show_notice: {"shown":true}')
  })
})
