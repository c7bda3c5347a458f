import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { until } from '@impact/service-kit/testing'
import { generateSigner, mintDelegation, mintInvocation } from '@impact/ucan'
import { fileHarness, type TestUser } from '../../support/harness.ts'
import { connectSocket, openSocket, type TestSocket } from '../../support/socket-client.ts'

describe('socket.io gateway: handshake and diagnostic events', () => {
  const t = fileHarness({ REALTIME_HANDSHAKE_TIMEOUT_MS: '1000' }, { listen: true })
  let alice: TestUser
  let bob: TestUser
  let aliceSession: string
  let bobSession: string
  const sockets: TestSocket[] = []
  const track = (socket: TestSocket) => { sockets.push(socket); return socket }
  /** Alice on her session, authenticated by her invocation alone. */
  const aliceSocket = async () =>
    track(await connectSocket(t.base, { sessionId: aliceSession, auth: { invocation: alice.invocation } }))
  const bobSocket = async () =>
    track(await connectSocket(t.base, { sessionId: bobSession, auth: { invocation: bob.invocation } }))
  const publish = (
    name: Parameters<typeof t.h.runtime.bus.publish>[0]['name'],
    data: Record<string, unknown>,
    { sessionId = aliceSession, requestId = 'r1' } = {}
  ) => { t.h.runtime.bus.publish({ name, sessionId, requestId, did: alice.did, data }) }
  /** Alice's grant to the oracle, lapsed a minute ago. */
  const lapsed = () =>
    ({ issuer: alice.signer, audience: t.h.oracleDid, expiration: Math.floor(Date.now() / 1000) - 60 })
  const unauthorized = (what: 'invocation' | 'delegation') => ({
    message: `Unauthorized: Invalid UCAN ${what}`,
    data: { code: `UCAN_INVALID_${what.toUpperCase()}`, statusCode: 401 }
  })
  const refusal = async (options: Parameters<typeof openSocket>[1]) => {
    const socket = track(openSocket(t.base, options))
    const error = await socket.next('connect_error')
    expect(socket.connected).toBe(false)
    expect(socket.events.some((e) => e.event === 'connected')).toBe(false)
    return error
  }

  beforeAll(async () => {
    [alice, bob] = [await t.h.user(), await t.h.user()]
    aliceSession = await t.h.newSession(alice.headers)
    bobSession = await t.h.newSession(bob.headers)
  })
  afterEach(() => { for (const socket of sockets.splice(0)) socket.disconnect() })

  it('accepts a valid invocation (with its delegation), joins the session and says connected', async () => {
    const socket = track(
      await connectSocket(t.base, {
        sessionId: aliceSession,
        userDid: alice.did,
        auth: { invocation: alice.invocation, ucanDelegation: alice.delegation }
      })
    )
    const connected = socket.events.find((e) => e.event === 'connected')?.data
    expect(connected).toEqual({
      message: 'Connected successfully',
      sessionId: aliceSession,
      timestamp: expect.any(String)
    })
    expect(Number.isNaN(Date.parse(connected.timestamp))).toBe(false)
    expect(socket.events[0]?.event).toBe('connected')
  })

  it('accepts an invocation alone, and a bare delegation as fallback', async () => {
    await aliceSocket()
    track(await connectSocket(t.base, { sessionId: aliceSession, auth: { ucanDelegation: alice.delegation } }))
  })

  it('refuses a handshake without sessionId', async () => {
    const error = await refusal({ auth: { invocation: alice.invocation } })
    expect(error.message).toMatch(/^Missing sessionId/)
    expect(error.data).toEqual({ code: 'ORACLE_WS_SESSION_REQUIRED', statusCode: 400 })
  })

  it('refuses a handshake without credentials, whatever userDid says', async () => {
    const error = await refusal({ sessionId: aliceSession, userDid: alice.did })
    expect(error.message).toMatch(/^Unauthorized: missing UCAN authentication/)
    expect(error.data).toEqual({ code: 'UCAN_MISSING', statusCode: 401 })
  })

  it('refuses an expired, a garbage and a foreign-audience invocation', async () => {
    const expired = await mintInvocation(lapsed())
    const elsewhere = await mintInvocation({ issuer: alice.signer, audience: (await generateSigner()).did() })
    for (const invocation of [expired, 'not-a-ucan', elsewhere]) {
      const error = await refusal({ sessionId: aliceSession, auth: { invocation, ucanDelegation: alice.delegation } })
      expect(error).toEqual(unauthorized('invocation'))
    }
  })

  it('refuses an invalid bare delegation', async () => {
    const expired = await mintDelegation({ ...lapsed(), capabilities: [{ can: '*', with: 'ixo:oracle' }] })
    const error = await refusal({ sessionId: aliceSession, auth: { ucanDelegation: expired } })
    expect(error).toEqual(unauthorized('delegation'))
  })

  it('refuses another user\'s session and an unknown one alike, even with the owner\'s DID as userDid', async () => {
    const theirs = await refusal({ sessionId: bobSession, userDid: bob.did, auth: { invocation: alice.invocation } })
    const unknown = await refusal({ sessionId: 's_missing', auth: { invocation: alice.invocation } })
    expect(theirs).toEqual({
      message: 'Session not found',
      data: { code: 'ORACLE_SESSION_NOT_FOUND', statusCode: 404 }
    })
    expect(unknown).toEqual(theirs)
  })

  it('closes a refused connection right after CONNECT_ERROR, and an idle one after the handshake timeout', async () => {
    const raw = (query: string) => {
      const ws = new WebSocket(`${t.base.replace('http', 'ws')}/socket.io/?EIO=4&transport=websocket${query}`)
      const frames: string[] = []
      ws.addEventListener('message', (m) => { frames.push(String(m.data)) })
      const closed = new Promise<number>((resolve) => { ws.addEventListener('close', () => { resolve(Date.now()) }) })
      return { ws, frames, closed, opened: new Promise((resolve) => { ws.addEventListener('open', resolve) }) }
    }
    const refused = raw(`&sessionId=${aliceSession}`)
    await refused.opened
    const sent = Date.now()
    refused.ws.send('40{"invocation":"garbage"}')
    expect((await refused.closed) - sent).toBeLessThan(500)
    expect(refused.frames[0]).toMatch(/^0\{"sid"/)
    expect(refused.frames[1]).toBe(
      '44{"message":"Unauthorized: Invalid UCAN invocation","data":{"code":"UCAN_INVALID_INVOCATION","statusCode":401}}'
    )

    const idle = raw('')
    await idle.opened
    const opened = Date.now()
    const idleFor = (await idle.closed) - opened
    expect(idleFor).toBeGreaterThan(800)
    expect(idleFor).toBeLessThan(3000)
    expect(idle.frames).toHaveLength(1)
  })

  it('answers ping, status and list-events to the sender', async () => {
    const socket = await aliceSocket()
    const other = await bobSocket()
    socket.emit('ping')
    expect(await socket.next('pong')).toEqual({ timestamp: expect.any(String), sessionId: aliceSession })
    socket.emit('status')
    const status = await socket.next('status')
    expect(status).toEqual({
      connected: true,
      sessionId: aliceSession,
      activeSessions: expect.any(Number),
      totalConnections: expect.any(Number),
      timestamp: expect.any(String)
    })
    expect(status.totalConnections).toBeGreaterThanOrEqual(2)
    expect(status.activeSessions).toBeGreaterThanOrEqual(2)
    socket.emit('list-events')
    const catalog = await socket.next('available-events')
    expect(catalog.clientEvents).toEqual([
      'ping',
      'status',
      'subscribe',
      'list-events',
      'tool_result',
      'action_call_result'
    ])
    expect(catalog.serverEvents).toEqual(
      expect.arrayContaining([
        'connected',
        'pong',
        'status',
        'subscribed',
        'available-events',
        'render_component',
        'tool_call',
        'action_call',
        'browser_tool_call',
        'router_update',
        'message_cache_invalidation'
      ])
    )
    expect(catalog).toMatchObject({ sessionId: aliceSession, optionalEvents: ['reasoning'] })
    await other.none('pong', 50)
  })

  it('acknowledges client events when asked to, and reports refused ones as error', async () => {
    const socket = await aliceSocket()
    expect(await socket.emitWithAck('ping')).toEqual({ ok: true })
    expect(await socket.emitWithAck('tool_result', { result: 1 })).toMatchObject({
      ok: false,
      code: 'ORACLE_WS_INVALID_PAYLOAD',
      error: expect.stringMatching(/toolCallId/)
    })
    socket.emit('launch_missiles', {})
    expect(await socket.next('error')).toMatchObject({
      event: 'launch_missiles',
      code: 'ORACLE_WS_UNKNOWN_EVENT',
      sessionId: aliceSession
    })
  })

  it('subscribes to the caller\'s own sessions only', async () => {
    const socket = await aliceSocket()
    socket.emit('subscribe')
    expect(await socket.next('subscribed')).toEqual({ sessionId: aliceSession, timestamp: expect.any(String) })

    const second = await t.h.newSession(alice.headers)
    socket.emit('subscribe', { sessionId: second })
    expect(await socket.next('subscribed', (d) => d.sessionId === second)).toMatchObject({ sessionId: second })
    publish('render_component', { componentName: 'Card' }, { sessionId: second, requestId: 'r-sub' })
    expect(await socket.next('render_component')).toEqual({
      eventName: 'render_component',
      payload: { componentName: 'Card', sessionId: second, requestId: 'r-sub' }
    })

    expect(await socket.emitWithAck('subscribe', { sessionId: bobSession })).toEqual({
      ok: false,
      error: 'Session not found',
      code: 'ORACLE_SESSION_NOT_FOUND'
    })
    expect(await socket.emitWithAck('subscribe', { events: ['everything'] })).toMatchObject({
      ok: false,
      code: 'ORACLE_WS_UNKNOWN_EVENT'
    })
  })

  it('forwards socket-bound bus events of the session in the notes\' shapes, and nothing else', async () => {
    const socket = await aliceSocket()
    const stranger = await bobSocket()
    const ids = { sessionId: aliceSession, requestId: 'r1' }
    const toolCall = () =>
      ({ ...ids, toolName: 'get_weather', args: { city: 'Paris' }, status: 'isRunning', eventId: 'call_1' })
    const browserCall = () => ({ ...ids, toolCallId: 'call_2', toolName: 'read_page', args: {} })
    const action = () => ({ ...ids, toolCallId: 'call_3', toolName: 'open_modal', args: { id: 1 } })

    publish('message', { content: 'token', timestamp: 'now' })
    publish('reasoning', { reasoning: 'hmm', isComplete: false })
    publish('done', {})
    publish('tool_call', toolCall())
    publish('render_component', { componentName: 'Chart', args: { points: 3 }, status: 'done', eventId: 'c1' })
    publish('router_update', { step: 'Routing to the research agent' })
    publish('browser_tool_call', browserCall())
    publish('action_call', { ...action(), status: 'isRunning' })
    publish('action_call', { ...action(), status: 'done', output: 'ok' })
    publish('message_cache_invalidation', { ...ids, status: 'done' })

    await socket.next('message_cache_invalidation')
    const received = socket.events.filter((e) => !['connected'].includes(e.event))
    expect(received).toEqual([
      { event: 'tool_call', data: { eventName: 'tool_call', payload: toolCall() } },
      {
        event: 'render_component',
        data: {
          eventName: 'render_component',
          payload: {
            componentName: 'Chart',
            args: { points: 3 },
            status: 'done',
            eventId: 'c1',
            sessionId: aliceSession,
            requestId: 'r1'
          }
        }
      },
      {
        event: 'router_update',
        data: {
          eventName: 'router_update',
          payload: { step: 'Routing to the research agent', sessionId: aliceSession, requestId: 'r1' }
        }
      },
      { event: 'browser_tool_call', data: browserCall() },
      { event: 'action_call', data: { ...action(), status: 'isRunning' } },
      {
        event: 'message_cache_invalidation',
        data: {
          eventName: 'message_cache_invalidation',
          payload: { ...ids, status: 'done' }
        }
      }
    ])
    expect(stranger.events.map((e) => e.event)).toEqual(['connected'])
  })

  it('sends reasoning only to connections that subscribed to it', async () => {
    const plain = await aliceSocket()
    const curious = await aliceSocket()
    curious.emit('subscribe', { events: ['reasoning'] })
    expect(await curious.next('subscribed')).toMatchObject({ sessionId: aliceSession, events: ['reasoning'] })
    publish('reasoning', { reasoning: 'Thinking', isComplete: false }, { requestId: 'r2' })
    expect(await curious.next('reasoning')).toEqual({
      eventName: 'reasoning',
      payload: { reasoning: 'Thinking', isComplete: false, sessionId: aliceSession, requestId: 'r2' }
    })
    await plain.none('reasoning', 50)
  })

  it('releases a connection when the client leaves', async () => {
    const socket = await aliceSocket()
    const before = t.h.runtime.realtime.stats().totalConnections
    socket.disconnect()
    await until(() => t.h.runtime.realtime.stats().totalConnections === before - 1, { timeout: 2000 })
  })
})
