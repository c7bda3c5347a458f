import { beforeAll, describe, expect, it } from 'vitest'
import { createHarness, fileHarness, type TestUser } from '../../support/harness.ts'
import { streamMessage } from '../../support/sse-client.ts'
import { connectSocket, openSocket, openWs } from '../../support/socket-client.ts'

describe('plain WebSocket endpoint /ws (JSON { event, data } frames)', () => {
  const t = fileHarness({ REALTIME_HANDSHAKE_TIMEOUT_MS: '500' }, { llm: true, listen: true })
  let alice: TestUser
  let bob: TestUser
  beforeAll(async () => { [alice, bob] = [await t.h.user(), await t.h.user()] })

  it('authenticates with a first auth message and answers the diagnostics like socket.io', async () => {
    const id = await t.h.newSession(alice.headers)
    const client = openWs(t.base, `/ws?sessionId=${id}`)
    await client.opened
    client.send('auth', { invocation: alice.invocation, ucanDelegation: alice.delegation })
    expect(await client.next('connected')).toEqual({
      message: 'Connected successfully',
      sessionId: id,
      timestamp: expect.any(String)
    })
    client.send('ping')
    expect(await client.next('pong')).toEqual({ timestamp: expect.any(String), sessionId: id })
    client.send('status', undefined, 'req-1')
    expect(await client.next('status')).toMatchObject({ connected: true, sessionId: id })
    expect(await client.next('ack')).toEqual({ id: 'req-1', ok: true })
    client.send('list-events')
    expect((await client.next('available-events')).clientEvents).toContain('tool_result')
    client.send('subscribe')
    expect(await client.next('subscribed')).toMatchObject({ sessionId: id })
    client.ws.send('not json')
    expect(await client.next('error')).toMatchObject({ code: 'ORACLE_WS_INVALID_MESSAGE' })
    client.ws.close()
  })

  it('authenticates with the HTTP headers on the upgrade, and takes the session from the auth message ' +
    'too', async () => {
    const id = await t.h.newSession(alice.headers)
    const byHeaders = openWs(t.base, `/ws?sessionId=${id}`, alice.headers)
    expect(await byHeaders.next('connected')).toMatchObject({ sessionId: id })
    byHeaders.ws.close()
    const byMessage = openWs(t.base, '/ws')
    await byMessage.opened
    byMessage.send('auth', { sessionId: id, ucanDelegation: alice.delegation })
    expect(await byMessage.next('connected')).toMatchObject({ sessionId: id })
    byMessage.ws.close()
  })

  it("refuses bad credentials, other users' sessions, missing sessionId and silence with connect_error " +
    'and a 44xx close', async () => {
    const id = await t.h.newSession(alice.headers)
    const cases: Array<[string, unknown, number, string]> = [
      [`/ws?sessionId=${id}`, { invocation: 'garbage' }, 4401, 'UCAN_INVALID_INVOCATION'],
      [`/ws?sessionId=${id}`, {}, 4401, 'UCAN_MISSING'],
      [`/ws?sessionId=${id}`, { invocation: bob.invocation }, 4404, 'ORACLE_SESSION_NOT_FOUND'],
      ['/ws', { invocation: alice.invocation }, 4400, 'ORACLE_WS_SESSION_REQUIRED']
    ]
    for (const [path, auth, code, errorCode] of cases) {
      const client = openWs(t.base, path)
      await client.opened
      client.send('auth', auth)
      expect(await client.next('connect_error')).toMatchObject({ code: errorCode })
      expect(await client.closed).toEqual({ code, reason: errorCode })
    }
    const silent = openWs(t.base, `/ws?sessionId=${id}`)
    expect(await silent.closed).toEqual({ code: 4408, reason: 'ORACLE_WS_AUTH_TIMEOUT' })
    expect(silent.events.map((e) => e.event)).toEqual(['connect_error'])
  })

  it('carries the same turn events as socket.io and round-trips a browser tool', async () => {
    const id = await t.h.newSession(alice.headers)
    const client = openWs(t.base, `/ws?sessionId=${id}`, alice.headers)
    const socket = await connectSocket(t.base, { sessionId: id, auth: { invocation: alice.invocation } })
    await client.next('connected')
    t.llm.enqueue({ toolCalls: [{ id: 'call_ws', name: 'read_page', args: {} }] }, { content: ['ok'] })
    const turn = streamMessage(t.base, id, alice.headers, {
      message: 'read',
      tools: [{ name: 'read_page', description: 'Reads the page', schema: {} }]
    })
    const call = await client.next('browser_tool_call')
    client.send('tool_result', { toolCallId: call.toolCallId, result: 'from ws' }, 7)
    expect(await client.next('ack')).toEqual({ id: 7, ok: true })
    const res = await turn
    expect(res.frames.find((f) => f.event === 'tool_call' && f.data.status === 'done')?.data.output).toBe('from ws')
    await client.next('message_cache_invalidation')
    await socket.next('message_cache_invalidation')
    const names = (events: Array<{ event: string }>) => events.map((e) => e.event)
    expect(names(client.events).filter((n) => n !== 'ack')).toEqual(names(socket.events))
    expect(client.events.filter((e) => e.event !== 'ack' && e.event !== 'connected').map((e) => e.data))
      .toEqual(socket.events.filter((e) => e.event !== 'connected').map((e) => e.data))
    client.ws.close()
    socket.disconnect()
  })

  it('answers an upgrade-less GET /ws with 404 and keeps the REST routes working', async () => {
    expect((await t.h.app.inject({ method: 'GET', url: '/ws' })).statusCode).toBe(404)
    expect((await fetch(`${t.base}/health`)).status).toBe(200)
  })
})

describe('connection limit and shutdown', () => {
  it('refuses connections beyond REALTIME_MAX_CONNECTIONS, and at shutdown closes socket.io and /ws ones so ' +
    'clients reconnect elsewhere', async () => {
    const h = await createHarness({ REALTIME_MAX_CONNECTIONS: '2' })
    try {
      const base = await h.app.listen({ host: '127.0.0.1', port: 0 })
      const user = await h.user()
      const id = (await h.app.inject({ method: 'POST', url: '/sessions', headers: user.headers })).json()
        .sessionId as string
      const socket = await connectSocket(base, { sessionId: id, auth: { invocation: user.invocation } })
      const client = openWs(base, `/ws?sessionId=${id}`, user.headers)
      await client.next('connected')
      const extra = openSocket(base, { sessionId: id, auth: { invocation: user.invocation } })
      expect(await extra.next('connect_error')).toEqual({
        message: 'Too many connections on this server; retry later',
        data: { code: 'ORACLE_WS_BUSY', statusCode: 503 }
      })
      const started = Date.now()
      await h.app.close()
      expect(Date.now() - started).toBeLessThan(5000)
      expect(await socket.next('disconnect')).toEqual({ reason: 'transport close' })
      expect(await client.closed).toEqual({ code: 1001, reason: 'server shutting down' })
      expect(h.runtime.realtime.stats()).toEqual({ totalConnections: 0, activeSessions: 0 })
      const late = openSocket(base, { sessionId: id, auth: { invocation: user.invocation } })
      await expect(late.next('connect_error', undefined, 3000)).resolves.toBeDefined()
      late.disconnect()
    } finally {
      await h.close()
    }
  })
})
