import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mintDelegation, mintInvocation } from '@impact/ucan'
import { createHarness, type Harness, type TestUser } from '../../support/harness.ts'
import { connectSocket, openWs } from '../../support/socket-client.ts'

const nowS = () => Math.floor(Date.now() / 1000)

// Credentials minted to expire 2 s from now: each test waits about that long, no more.
describe('a WebSocket connection ends when the credential it was opened with expires', () => {
  let h: Harness
  let base: string
  let user: TestUser
  let sessionId: string
  const publish = (requestId: string) => {
    const data = { sessionId, requestId, status: 'done' }
    h.runtime.bus.publish({ name: 'message_cache_invalidation', sessionId, requestId, did: user.did, data })
  }

  beforeAll(async () => {
    h = await createHarness()
    base = await h.app.listen({ host: '127.0.0.1', port: 0 })
    user = await h.user()
    sessionId = (await h.app.inject({ method: 'POST', url: '/sessions', headers: user.headers })).json().sessionId
  })
  afterAll(async () => { await h?.close() })

  it('socket.io: events until the invocation expires, then error UCAN_EXPIRED and a server disconnect', async () => {
    const invocation = await mintInvocation({ issuer: user.signer, audience: h.oracleDid, expiration: nowS() + 2 })
    const socket = await connectSocket(base, { sessionId, auth: { invocation } })
    const lasting = await connectSocket(base, { sessionId, auth: { invocation: user.invocation } })
    publish('r-before')
    expect(await socket.next('message_cache_invalidation')).toMatchObject({ payload: { requestId: 'r-before' } })

    expect(await socket.next('error', undefined, 4000)).toEqual({
      message: 'Unauthorized: the UCAN this connection was opened with has expired; reconnect with a fresh one',
      code: 'UCAN_EXPIRED',
      sessionId,
      timestamp: expect.any(String)
    })
    expect(await socket.next('disconnect')).toEqual({ reason: 'io server disconnect' })
    expect(h.runtime.realtime.stats().totalConnections).toBe(1)
    publish('r-after')
    expect(await lasting.next('message_cache_invalidation', (d) => d.payload.requestId === 'r-after')).toBeDefined()
    expect(socket.events.filter((e) => e.event === 'message_cache_invalidation')).toHaveLength(1)
    lasting.disconnect()
  })

  it('/ws: the same with a bare delegation, closed 4401', async () => {
    const capabilities = [{ can: '*', with: 'ixo:oracle' }]
    const expiration = nowS() + 2
    const delegation = await mintDelegation({ issuer: user.signer, audience: h.oracleDid, capabilities, expiration })
    const client = openWs(base, `/ws?sessionId=${sessionId}`)
    await client.opened
    client.send('auth', { ucanDelegation: delegation })
    await client.next('connected')
    expect(await client.next('error', undefined, 4000)).toMatchObject({ code: 'UCAN_EXPIRED', sessionId })
    expect(await client.closed).toEqual({ code: 4401, reason: 'UCAN_EXPIRED' })
  })
})
