import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mintDelegation } from '@impact/ucan'
import { createHarness, type Harness, type TestUser } from '../support/harness.ts'
import { openSocket } from '../support/socket-client.ts'

const nowS = () => Math.floor(Date.now() / 1000)
const YEAR = 365 * 24 * 3600
const ORACLE = { can: '*', with: 'ixo:oracle' }
const NOT_FOR_AUTH = 'Invalid UCAN delegation: it does not grant * on ixo:oracle, ' +
  'which authenticating with a delegation alone needs'
const TOO_LONG = 'it lives longer than 30 days, the longest this oracle accepts'
const bare = (delegation: string) => ({ 'x-ucan-delegation': delegation })

describe('a bare delegation as the credential', () => {
  let h: Harness
  let base: string
  let user: TestUser
  const mint = async (capabilities: Array<{ can: string, with: string }>, expiration = nowS() + 3600) =>
    await mintDelegation({ issuer: user.signer, audience: h.oracleDid, capabilities, expiration })
  const sessions = async (delegation: string) =>
    await h.app.inject({ method: 'GET', url: '/sessions', headers: bare(delegation) })
  const store = async (raw: string) =>
    await h.app.inject({ method: 'POST', url: '/delegation', headers: user.headers, payload: { raw } })

  beforeAll(async () => {
    h = await createHarness({ NODE_ENV: 'development' })
    base = await h.app.listen({ host: '127.0.0.1', port: 0 })
    user = await h.user()
  })
  afterAll(async () => { await h?.close() })

  it.each([
    ['memory/read', [{ can: 'memory/read', with: 'ixo:memory' }]],
    ['subscriptions/read', [{ can: 'subscriptions/read', with: 'ixo:subscriptions' }]],
    ['downstream services only', [{ can: 'memory/*', with: 'ixo:memory' }, { can: 'sandbox/*', with: 'ixo:sandbox' }]]
  ])('refuses one granting %s, over HTTP and in the socket.io handshake', async (_name, capabilities) => {
    const delegation = await mint(capabilities)
    const res = await sessions(delegation)
    expect(res.statusCode).toBe(401)
    expect(res.json()).toMatchObject({ statusCode: 401, code: 'UCAN_INVALID_DELEGATION', message: NOT_FOR_AUTH })
    const socket = openSocket(base, { sessionId: 's_any', auth: { ucanDelegation: delegation } })
    expect(await socket.next('connect_error')).toEqual({
      message: `Unauthorized: ${NOT_FOR_AUTH}`,
      data: { code: 'UCAN_INVALID_DELEGATION', statusCode: 401 }
    })
    socket.disconnect()
  })

  it('accepts one granting * on ixo:oracle (beside other capabilities) or on ucan:*', async () => {
    expect((await sessions(await mint([{ can: 'memory/*', with: 'ixo:memory' }, ORACLE]))).statusCode).toBe(200)
    expect((await sessions(await mint([{ can: '*', with: 'ucan:*' }]))).statusCode).toBe(200)
  })

  it.each([10, 100])('refuses a %i-year delegation as credential and for storage, keeps a 30-day one', async (n) => {
    const long = await mint([ORACLE], nowS() + n * YEAR)
    expect((await sessions(long)).json())
      .toMatchObject({ code: 'UCAN_INVALID_DELEGATION', message: `Invalid UCAN delegation: ${TOO_LONG}` })
    const stored = await store(long)
    expect(stored.statusCode).toBe(400)
    expect(stored.json())
      .toMatchObject({ code: 'ORACLE_DELEGATION_INVALID', message: `Invalid delegation: ${TOO_LONG}` })
    const month = await mint([ORACLE], nowS() + 30 * 24 * 3600)
    expect((await sessions(month)).statusCode).toBe(200)
    expect((await store(month)).statusCode).toBe(200)
  })
})

// Apps are built inside these tests: a loaded machine needs more than the default 5 s for one.
describe('bare delegation settings', { timeout: 20_000 }, () => {
  const sessions = async (h: Harness, headers: Record<string, string>) =>
    await h.app.inject({ method: 'GET', url: '/sessions', headers })

  it('caps the lifetime with UCAN_DELEGATION_MAX_TTL_SECONDS', async () => {
    const h = await createHarness({ UCAN_DELEGATION_MAX_TTL_SECONDS: '3600' })
    try {
      const user = await h.user()
      const twoHours = await mintDelegation({
        issuer: user.signer, audience: h.oracleDid, capabilities: [ORACLE], lifetimeSeconds: 7200
      })
      expect((await sessions(h, bare(twoHours))).json().message)
        .toBe('Invalid UCAN delegation: it lives longer than 3600 s, the longest this oracle accepts')
    } finally {
      await h.close()
    }
  })

  it('is off by default in production: 401 UCAN_INVOCATION_REQUIRED (HTTP, WebSocket); invocations work', async () => {
    const h = await createHarness({ NODE_ENV: 'production', LLM_PROVIDER: 'offline' })
    try {
      const base = await h.app.listen({ host: '127.0.0.1', port: 0 })
      const user = await h.user()
      const res = await sessions(h, bare(user.delegation))
      expect(res.statusCode).toBe(401)
      expect(res.json()).toMatchObject({
        code: 'UCAN_INVOCATION_REQUIRED',
        message: 'A bare x-ucan-delegation is not accepted as the credential here: ' +
          'send Authorization: Bearer <invocation> together with X-Auth-Type: ucan'
      })
      const created = await h.app.inject({ method: 'POST', url: '/sessions', headers: user.headers })
      expect(created.statusCode).toBe(201)
      const sessionId = created.json().sessionId as string
      const socket = openSocket(base, { sessionId, auth: { ucanDelegation: user.delegation } })
      expect(await socket.next('connect_error'))
        .toMatchObject({ data: { code: 'UCAN_INVOCATION_REQUIRED', statusCode: 401 } })
      socket.disconnect()
    } finally {
      await h.close()
    }
  })

  it('can be turned on in production with UCAN_ALLOW_BARE_DELEGATION_AUTH=true', async () => {
    const h = await createHarness({
      NODE_ENV: 'production', LLM_PROVIDER: 'offline', UCAN_ALLOW_BARE_DELEGATION_AUTH: 'true'
    })
    try {
      expect((await sessions(h, bare((await h.user()).delegation))).statusCode).toBe(200)
    } finally {
      await h.close()
    }
  })
})
