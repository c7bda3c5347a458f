import { randomBytes } from 'node:crypto'
import { createTestDatabase } from '@impact/persistence/testing'
import { describe, expect, it, onTestFinished } from 'vitest'
import { ConfigSchema } from '../../src/config.ts'
import { ADMIN_KEY, startApp } from '../helper.ts'

const servers = (process.env.DATABASE_URL ?? '') !== '' && (process.env.REDIS_URL ?? '') !== ''
const clientIp = () => `10.${[1, 2, 3].map(() => randomBytes(1)[0]).join('.')}`
const wrongKey = () => ({ authorization: `Bearer dk_${randomBytes(32).toString('base64url')}` })

async function open (env: Record<string, string>, database?: Awaited<ReturnType<typeof createTestDatabase>>, statePrefix?: string) {
  const t = await startApp(env, { statePrefix: statePrefix ?? `domain-api-test-${randomBytes(4).toString('hex')}:`, ...(database !== undefined ? { database } : {}) })
  onTestFinished(async () => { await t.close() })
  return t
}

describe('rate limits', () => {
  it('meets a flood of wrong API keys with 429 and Retry-After after the default failure budget', async () => {
    const budget = ConfigSchema.properties.RATE_LIMIT_AUTH_FAILURES_MAX.default
    const { app } = await open({ RATE_LIMIT_AUTH_FAILURES_MAX: String(budget) })
    const ip = clientIp()
    let attempts = 0
    let res
    do {
      res = await app.inject({ method: 'GET', url: '/v1/domains', headers: wrongKey(), remoteAddress: ip })
      attempts++
    } while (res.statusCode === 401 && attempts < 2100)
    expect(res.statusCode).toBe(429)
    expect(attempts).toBe(budget + 1)
    expect(res.json()).toMatchObject({ statusCode: 429, error: 'Too Many Requests', code: 'DOMAIN_RATE_LIMITED' })
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0)
  })

  it('refuses even the right key from a client whose keys failed too often, and not other clients', async () => {
    const { app, issueKey, auth } = await open({ RATE_LIMIT_AUTH_FAILURES_MAX: '5' })
    const registrar = await issueKey(['registrar'])
    const ip = clientIp()
    const statuses = []
    for (let i = 0; i < 8; i++) statuses.push((await app.inject({ method: 'GET', url: '/v1/domains', headers: wrongKey(), remoteAddress: ip })).statusCode)
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429])

    const blocked = await app.inject({ method: 'GET', url: '/v1/api-keys/current', headers: auth(registrar.key), remoteAddress: ip })
    expect(blocked.statusCode).toBe(429)
    expect(blocked.json().message).toMatch(/failed authentications/)
    const elsewhere = await app.inject({ method: 'GET', url: '/v1/api-keys/current', headers: auth(registrar.key), remoteAddress: clientIp() })
    expect(elsewhere.statusCode).toBe(200)
  })

  it('limits each API key wherever it calls from, while another key still passes', async () => {
    const { app, issueKey, auth } = await open({ RATE_LIMIT_PRINCIPAL_MAX: '3' })
    const [busy, calm] = [await issueKey(['registrar']), await issueKey(['registrar'])]
    const statuses = []
    for (let i = 0; i < 5; i++) statuses.push((await app.inject({ method: 'GET', url: '/v1/domains', headers: auth(busy.key), remoteAddress: clientIp() })).statusCode)
    expect(statuses).toEqual([200, 200, 200, 429, 429])

    const refused = await app.inject({ method: 'POST', url: '/v1/domains', headers: auth(busy.key), payload: { type: 'Asset', class: 'did:ixo:entity:0123456789abcdef0123456789abcdef' } })
    expect(refused.statusCode).toBe(429)
    expect(refused.json()).toMatchObject({ code: 'DOMAIN_RATE_LIMITED', message: expect.stringMatching(/API key/) })
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0)
    const list = await app.inject({ method: 'GET', url: `/v1/domains?controller=${busy.account}`, headers: auth(calm.key) })
    expect(list.statusCode).toBe(200)
    expect(list.json().items).toHaveLength(0)
  })

  it('limits each client on every route but the probes, with the limit headers on normal answers', async () => {
    const { app, issueKey, auth } = await open({ RATE_LIMIT_MAX: '4' })
    const registrar = await issueKey(['registrar'])
    const ip = clientIp()
    const first = await app.inject({ method: 'GET', url: '/v1/api-keys/current', headers: auth(registrar.key), remoteAddress: ip })
    expect(first.headers['x-ratelimit-limit']).toBe('4')
    expect(first.headers['x-ratelimit-remaining']).toBe('3')
    const statuses = [first.statusCode]
    for (const url of ['/v1/domains', '/docs/json', '/no-such-route', '/v1/domains']) {
      statuses.push((await app.inject({ method: 'GET', url, headers: auth(registrar.key), remoteAddress: ip })).statusCode)
    }
    expect(statuses).toEqual([200, 200, 200, 404, 429])
    for (let i = 0; i < 6; i++) {
      expect((await app.inject({ method: 'GET', url: '/health', remoteAddress: ip })).statusCode).toBe(200)
      expect((await app.inject({ method: 'GET', url: '/health/live', remoteAddress: ip })).statusCode).toBe(200)
    }
  })

  it('takes the client from X-Forwarded-For only behind a trusted proxy', async () => {
    const direct = await open({ RATE_LIMIT_AUTH_FAILURES_MAX: '2' })
    const forged = []
    for (let i = 0; i < 4; i++) {
      forged.push((await direct.app.inject({ method: 'GET', url: '/v1/domains', headers: { ...wrongKey(), 'x-forwarded-for': clientIp() }, remoteAddress: '203.0.113.7' })).statusCode)
    }
    expect(forged).toEqual([401, 401, 429, 429])

    const proxied = await open({ RATE_LIMIT_AUTH_FAILURES_MAX: '2', TRUST_PROXY_ENABLED: 'true' })
    const statuses = []
    for (let i = 0; i < 4; i++) {
      statuses.push((await proxied.app.inject({ method: 'GET', url: '/v1/domains', headers: { ...wrongKey(), 'x-forwarded-for': clientIp() }, remoteAddress: '127.0.0.1' })).statusCode)
    }
    expect(statuses).toEqual([401, 401, 401, 401])
  })

  it('documents the 429 in the OpenAPI document', async () => {
    const { app } = await open({})
    const spec = (await app.inject({ method: 'GET', url: '/docs/json' })).json()
    expect(spec.paths['/v1/domains'].post.responses['429'].headers['retry-after']).toBeDefined()
    expect(spec.paths['/v1/api-keys/current'].get.responses['429']).toBeDefined()
  })
})

describe.runIf(servers)('rate limits on two replicas on PostgreSQL and Redis', () => {
  it('shares the failed-authentication and per-key budgets between replicas', async () => {
    const database = await createTestDatabase()
    onTestFinished(async () => { await database.drop() })
    const prefix = `domain-api-test-${randomBytes(4).toString('hex')}:`
    const env = { RATE_LIMIT_AUTH_FAILURES_MAX: '4', RATE_LIMIT_PRINCIPAL_MAX: '4' }
    const [a, b] = [await open(env, database, prefix), await open(env, database, prefix)]
    const ip = clientIp()
    const failures = []
    for (let i = 0; i < 6; i++) failures.push((await [a, b][i % 2]!.app.inject({ method: 'GET', url: '/v1/domains', headers: wrongKey(), remoteAddress: ip })).statusCode)
    expect(failures).toEqual([401, 401, 401, 401, 429, 429])

    const key = await a.issueKey(['voter'])
    const calls = []
    for (let i = 0; i < 6; i++) calls.push((await [a, b][i % 2]!.app.inject({ method: 'GET', url: '/v1/api-keys/current', headers: a.auth(key.key) })).statusCode)
    expect(calls).toEqual([200, 200, 200, 200, 429, 429])
    expect((await b.app.inject({ method: 'GET', url: '/v1/api-keys/current', headers: b.auth(ADMIN_KEY) })).statusCode).toBe(200)
  })
})
