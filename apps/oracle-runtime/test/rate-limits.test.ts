import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { createHarness, type Harness } from './support/harness.ts'

const servers = (process.env.DATABASE_URL ?? '') !== '' && (process.env.REDIS_URL ?? '') !== ''
const clientIp = () => `10.${[1, 2, 3].map(() => randomBytes(1)[0]).join('.')}`

describe('rate limits', () => {
  let h: Harness
  beforeAll(async () => {
    h = await createHarness({ RATE_LIMIT_MAX: '8', RATE_LIMIT_AUTH_FAILURES_MAX: '3', RATE_LIMIT_PRINCIPAL_MAX: '3' })
  })
  afterAll(async () => { await h?.close() })
  const sessions = async (method: 'GET' | 'POST', headers: Record<string, string>, remoteAddress = clientIp()) =>
    await h.app.inject({ method, url: '/sessions', headers, remoteAddress })

  it('refuses a DID over its budget from any address while another DID still passes', async () => {
    const [busy, calm] = [await h.user(), await h.user()]
    const statuses = []
    for (let i = 0; i < 5; i++) statuses.push((await sessions('GET', busy.headers)).statusCode)
    expect(statuses).toEqual([200, 200, 200, 429, 429])

    const refused = await sessions('POST', { ...busy.headers, origin: 'https://app.example' })
    expect(refused.statusCode).toBe(429)
    // The 429's shape is service-kit's (tested there); the app gives it its code and keys it by DID.
    expect(refused.json()).toMatchObject({
      code: 'ORACLE_RATE_LIMITED',
      message: expect.stringMatching(/^Too many requests for this DID; retry in \d+ seconds$/)
    })
    expect(String(refused.headers['access-control-expose-headers']).toLowerCase()).toContain('retry-after')

    const other = await sessions('POST', calm.headers)
    expect(other.statusCode).toBe(201)
    expect(other.headers['x-ratelimit-limit']).toBe('3')
    expect(other.headers['x-ratelimit-remaining']).toBe('2')
  })

  it('refuses an address whose authentications failed too often, valid credentials included', async () => {
    const alice = await h.user()
    const ip = clientIp()
    const forged = { authorization: 'Bearer not-a-ucan', 'x-auth-type': 'ucan' }
    const statuses = []
    const forgedCall = async () => (await sessions('GET', forged, ip)).statusCode
    for (let i = 0; i < 2; i++) statuses.push(await forgedCall())
    statuses.push((await sessions('GET', {}, ip)).statusCode)
    for (let i = 0; i < 2; i++) statuses.push(await forgedCall())
    expect(statuses).toEqual([401, 401, 401, 429, 429])

    const blocked = await sessions('GET', alice.headers, ip)
    expect(blocked.statusCode).toBe(429)
    expect(blocked.json()).toMatchObject({
      code: 'ORACLE_RATE_LIMITED',
      message: expect.stringMatching(/failed authentications/)
    })
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0)
    const elsewhere = await sessions('GET', alice.headers)
    expect(elsewhere.statusCode).toBe(200)
  })

  it('limits each address on public routes too, but never the probes', async () => {
    const { app } = h
    const ip = clientIp()
    const statuses = []
    for (let i = 0; i < 10; i++) {
      statuses.push((await app.inject({ method: 'GET', url: '/models', remoteAddress: ip })).statusCode)
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 429, 429])
    for (let i = 0; i < 6; i++) {
      expect((await app.inject({ method: 'GET', url: '/health', remoteAddress: ip })).statusCode).toBe(200)
      expect((await app.inject({ method: 'GET', url: '/health/live', remoteAddress: ip })).statusCode).toBe(200)
    }
  })

  it('documents the 429 in the OpenAPI document', async () => {
    const spec = (await h.app.inject({ method: 'GET', url: '/docs/json', remoteAddress: clientIp() })).json()
    expect(spec.paths['/messages/{sessionId}'].post.responses['429'].headers['retry-after']).toBeDefined()
    expect(spec.paths['/sessions'].get.responses['429']).toBeDefined()
  })
})

describe.runIf(servers)('rate limits on two replicas on PostgreSQL and Redis', () => {
  it('draws a DID\'s requests on both replicas from one budget', async () => {
    const env = { RATE_LIMIT_PRINCIPAL_MAX: '4' }
    const a = await createHarness(env)
    const b = await createHarness({ ...env, ORACLE_PRIVATE_KEY: a.oracleKey }, {}, a.shared)
    onTestFinished(async () => {
      await b.close()
      await a.close()
    })
    const [busy, calm] = [await a.user(), await a.user()]
    const statuses = []
    for (let i = 0; i < 6; i++) {
      const replica = [a, b][i % 2]!
      statuses.push((await replica.app.inject({ method: 'GET', url: '/sessions', headers: busy.headers })).statusCode)
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429])
    expect((await b.app.inject({ method: 'GET', url: '/sessions', headers: calm.headers })).statusCode).toBe(200)
  })
})
