import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generateSigner, mintDelegation, mintInvocation } from '@impact/ucan'
import { createHarness, type Harness, type TestUser } from '../support/harness.ts'

const nowS = () => Math.floor(Date.now() / 1000)
const MISSING = new RegExp('^Missing UCAN authentication: send Authorization: Bearer <invocation> ' +
  'together with X-Auth-Type: ucan, or an x-ucan-delegation header$')

describe('UCAN authentication', () => {
  let h: Harness
  let user: TestUser
  const ixoKeys = new Map<string, string[]>()
  beforeAll(async () => {
    h = await createHarness({}, { resolveDidKey: async (did) => ixoKeys.get(did) ?? [] })
    user = await h.user()
  })
  afterAll(async () => { await h?.close() })

  const sessions = async (headers: Record<string, string>) =>
    await h.app.inject({ method: 'GET', url: '/sessions', headers })
  const bearer = (token: string) => ({ authorization: `Bearer ${token}`, 'x-auth-type': 'ucan' })

  it('accepts a valid invocation and scopes data to its signer', async () => {
    const created = await h.app.inject({ method: 'POST', url: '/sessions', headers: bearer(user.invocation) })
    expect(created.statusCode).toBe(201)
    const res = await sessions(bearer(user.invocation))
    expect(res.statusCode).toBe(200)
    expect(res.json().sessions.map((s: { sessionId: string }) => s.sessionId)).toContain(created.json().sessionId)
  })

  it('accepts the same invocation on every request until it expires', async () => {
    for (let i = 0; i < 3; i++) expect((await sessions(bearer(user.invocation))).statusCode).toBe(200)
  })

  it.each([
    ['expired', async (u: TestUser) =>
      await mintInvocation({ issuer: u.signer, audience: h.oracleDid, expiration: nowS() - 60 })],
    ['forged', async (u: TestUser) =>
      await mintInvocation({ issuer: (await generateSigner()).withDID(u.signer.did()), audience: h.oracleDid })],
    ['tampered', async (u: TestUser) => {
      const t = await mintInvocation({ issuer: u.signer, audience: h.oracleDid })
      return `${t.slice(0, 300)}${t[300] === 'A' ? 'B' : 'A'}${t.slice(301)}`
    }],
    ['for another audience', async (u: TestUser) =>
      await mintInvocation({ issuer: u.signer, audience: (await generateSigner()).did() })],
    ['without expiry', async (u: TestUser) =>
      await mintInvocation({ issuer: u.signer, audience: h.oracleDid, expiration: Infinity })],
    ['living too long', async (u: TestUser) =>
      await mintInvocation({ issuer: u.signer, audience: h.oracleDid, lifetimeSeconds: 24 * 3600 })],
    ['that is not base64', async () => 'not-a-token!']
  ])('answers 401 Invalid UCAN invocation to an invocation %s', async (_name, mint) => {
    const res = await sessions(bearer(await mint(user)))
    expect(res.statusCode).toBe(401)
    expect(res.json())
      .toMatchObject({ statusCode: 401, message: 'Invalid UCAN invocation', code: 'UCAN_INVALID_INVOCATION' })
  })

  it('does not fall back to the delegation when the invocation is invalid', async () => {
    const expired = await mintInvocation({ issuer: user.signer, audience: h.oracleDid, expiration: nowS() - 60 })
    const res = await sessions({ ...bearer(expired), 'x-ucan-delegation': user.delegation })
    expect(res.statusCode).toBe(401)
  })

  it('accepts a bare delegation as fallback, identifying its issuer', async () => {
    const headers = { 'x-ucan-delegation': user.delegation }
    const created = await h.app.inject({ method: 'POST', url: '/sessions', headers })
    expect(created.statusCode).toBe(201)
    const mine = await sessions(bearer(user.invocation))
    expect(mine.json().sessions.map((s: { sessionId: string }) => s.sessionId)).toContain(created.json().sessionId)
  })

  it('refuses an invalid bare delegation with 401 Invalid UCAN delegation', async () => {
    const foreign = await mintDelegation({
      issuer: user.signer,
      audience: (await generateSigner()).did(),
      capabilities: [{ can: '*', with: 'ixo:oracle' }]
    })
    const res = await sessions({ 'x-ucan-delegation': foreign })
    expect(res.json()).toMatchObject({ statusCode: 401, message: 'Invalid UCAN delegation' })
  })

  it('ignores the bearer without X-Auth-Type: ucan', async () => {
    const res = await sessions({ authorization: `Bearer ${user.invocation}` })
    expect(res.statusCode).toBe(401)
    expect(res.json().message).toMatch(MISSING)
  })

  it('never trusts x-did alone', async () => {
    const res = await sessions({ 'x-did': user.did })
    expect(res.statusCode).toBe(401)
    expect(res.json()).toMatchObject({ statusCode: 401, code: 'UCAN_MISSING' })
    expect(res.json().message).toMatch(MISSING)
  })

  it('takes the identity from the invocation, not from a spoofed x-did', async () => {
    const other = await h.user()
    const headers = { ...bearer(user.invocation), 'x-did': other.did }
    const created = await h.app.inject({ method: 'POST', url: '/sessions', headers })
    const theirs = await sessions(bearer(other.invocation))
    const ids = theirs.json().sessions.map((s: { sessionId: string }) => s.sessionId)
    expect(ids).not.toContain(created.json().sessionId)
  })

  it('authenticates a did:ixo user through the key resolver, and refuses an unknown one', async () => {
    const key = await generateSigner()
    ixoKeys.set('did:ixo:ixo1alice', [key.did()])
    const invocationAs = async (did: `did:ixo:${string}`) =>
      await mintInvocation({ issuer: key.withDID(did), audience: h.oracleDid })
    const ok = await sessions(bearer(await invocationAs('did:ixo:ixo1alice')))
    expect(ok.statusCode).toBe(200)
    const unknown = await sessions(bearer(await invocationAs('did:ixo:ixo1nobody')))
    expect(unknown.statusCode).toBe(401)
  })

  it('refuses the bare delegation when UCAN_ALLOW_BARE_DELEGATION_AUTH is off', async () => {
    const strict = await createHarness({ UCAN_ALLOW_BARE_DELEGATION_AUTH: 'false' })
    try {
      const u = await strict.user()
      const bare = { 'x-ucan-delegation': u.delegation }
      expect((await strict.app.inject({ method: 'GET', url: '/sessions', headers: bare })).statusCode).toBe(401)
      expect((await strict.app.inject({ method: 'GET', url: '/sessions', headers: u.headers })).statusCode).toBe(200)
    } finally {
      await strict.close()
    }
  })

  describe('public routes', () => {
    const publicRoutes = ['/', '/health', '/models', '/docs/json']
    it.each(publicRoutes)('%s answers without credentials and ignores bad ones', async (url) => {
      const garbage = { authorization: 'Bearer garbage', 'x-auth-type': 'ucan', 'x-ucan-delegation': 'garbage' }
      for (const headers of [{}, garbage]) {
        const res = await h.app.inject({ method: 'GET', url, headers })
        expect(res.statusCode).toBe(200)
      }
    })

    it('reports the oracle DID on the landing route', async () => {
      const res = await h.app.inject({ method: 'GET', url: '/' })
      expect(res.json()).toMatchObject({ status: 'ok', oracleDid: h.oracleDid })
      expect(Date.parse(res.json().timestamp)).not.toBeNaN()
    })

    it('lists the models with a default', async () => {
      const res = await h.app.inject({ method: 'GET', url: '/models' })
      expect(res.json()).toMatchObject({
        default: 'offline',
        models: [{ id: 'offline', isDefault: true, pricing: { currency: 'USD', unit: 'per_million_tokens' } }]
      })
    })
  })

  describe('CORS and request ids', () => {
    it('answers a preflight with the allowed headers and methods, wildcard by default', async () => {
      const res = await h.app.inject({
        method: 'OPTIONS',
        url: '/sessions',
        headers: {
          origin: 'https://app.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization,x-auth-type,x-ucan-delegation'
        }
      })
      expect(res.statusCode).toBe(204)
      expect(res.headers['access-control-allow-origin']).toBe('*')
      const allowed = String(res.headers['access-control-allow-headers']).toLowerCase()
      const expected = [
        'content-type', 'authorization', 'x-ucan-delegation', 'x-matrix-access-token', 'x-matrix-homeserver', 'x-did',
        'x-request-id', 'x-auth-type', 'x-timezone', 'traceparent', 'tracestate'
      ]
      for (const name of expected) expect(allowed).toContain(name)
      const methods = String(res.headers['access-control-allow-methods']).replace(/\s/g, '')
      expect(methods).toBe('GET,POST,PUT,DELETE,PATCH,OPTIONS')
    })

    it('exposes and echoes X-Request-Id, on errors too', async () => {
      const headers = { origin: 'https://app.example', 'x-request-id': 'req-123' }
      const res = await h.app.inject({ method: 'GET', url: '/sessions', headers })
      expect(res.statusCode).toBe(401)
      expect(res.headers['x-request-id']).toBe('req-123')
      expect(res.headers['access-control-expose-headers']).toContain('X-Request-Id')
    })

    it('limits origins and allows credentials when CORS_ORIGIN is set', async () => {
      const strict = await createHarness({ CORS_ORIGIN: 'https://portal.example' })
      try {
        const ok = await strict.app.inject({ method: 'GET', url: '/', headers: { origin: 'https://portal.example' } })
        expect(ok.headers['access-control-allow-origin']).toBe('https://portal.example')
        expect(ok.headers['access-control-allow-credentials']).toBe('true')
        const other = await strict.app.inject({ method: 'GET', url: '/', headers: { origin: 'https://evil.example' } })
        expect(other.headers['access-control-allow-origin']).toBeUndefined()
      } finally {
        await strict.close()
      }
    })
  })
})
