import { randomBytes } from 'node:crypto'
import { createTestDatabase } from '@impact/persistence/testing'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { ConfigSchema } from '../src/config.ts'
import { ADMIN_KEY, PROTOCOL, randomAccount, startApp, type TestApp } from './helper.ts'

const servers = (process.env.DATABASE_URL ?? '') !== '' && (process.env.REDIS_URL ?? '') !== ''
const clientIp = () => `10.${[1, 2, 3].map(() => randomBytes(1)[0]).join('.')}`
const wrongKey = () => ({ authorization: `Bearer dk_${randomBytes(32).toString('base64url')}` })

const testPrefix = () => `domain-api-test-${randomBytes(4).toString('hex')}:`

describe('rate limits with small budgets', () => {
  let t: TestApp
  const account = randomAccount()
  // The admin key grants one account and issues three keys of it here from 127.0.0.1, within both of its budgets.
  beforeAll(async () => {
    t = await startApp(
      { RATE_LIMIT_MAX: '8', RATE_LIMIT_AUTH_FAILURES_MAX: '5', RATE_LIMIT_PRINCIPAL_MAX: '4' },
      { statePrefix: testPrefix() }
    )
    await t.grant(account, ['registrar'])
  })
  afterAll(async () => { await t?.close() })

  it('refuses even the right key from a client whose keys failed too often, and not other clients', async () => {
    const { app, issueKey, auth } = t
    const registrar = await issueKey(['registrar'], account, { grant: false })
    const ip = clientIp()
    const statuses = []
    for (let i = 0; i < 7; i++) {
      const res = await app.inject({ method: 'GET', url: '/v1/domains', headers: wrongKey(), remoteAddress: ip })
      statuses.push(res.statusCode)
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429])

    const blocked = await app.inject({
      method: 'GET',
      url: '/v1/api-keys/current',
      headers: auth(registrar.key),
      remoteAddress: ip
    })
    expect(blocked.statusCode).toBe(429)
    expect(blocked.json()).toMatchObject({ statusCode: 429, error: 'Too Many Requests', code: 'DOMAIN_RATE_LIMITED' })
    expect(blocked.json().message).toMatch(/^Too many failed authentications from this client; retry in \d+ seconds$/)
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0)
    const elsewhere = await app.inject({
      method: 'GET',
      url: '/v1/api-keys/current',
      headers: auth(registrar.key),
      remoteAddress: clientIp()
    })
    expect(elsewhere.statusCode).toBe(200)
  })

  it('limits each API key wherever it calls from, while another key still passes', async () => {
    const { app, issueKey, auth } = t
    const busy = await issueKey(['registrar'], account, { grant: false })
    const calm = await issueKey(['registrar'], account, { grant: false })
    const first = await app.inject({
      method: 'GET',
      url: '/v1/domains',
      headers: auth(busy.key),
      remoteAddress: clientIp()
    })
    expect(first.headers['x-ratelimit-limit']).toBe('4')
    expect(first.headers['x-ratelimit-remaining']).toBe('3')
    const statuses = [first.statusCode]
    for (let i = 0; i < 5; i++) {
      const res = await app.inject({
        method: 'GET',
        url: '/v1/domains',
        headers: auth(busy.key),
        remoteAddress: clientIp()
      })
      statuses.push(res.statusCode)
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429])

    const refused = await app.inject({
      method: 'POST',
      url: '/v1/domains',
      headers: auth(busy.key),
      payload: { type: 'Asset', class: PROTOCOL },
      remoteAddress: clientIp()
    })
    expect(refused.statusCode).toBe(429)
    expect(refused.json()).toMatchObject({ code: 'DOMAIN_RATE_LIMITED', message: expect.stringMatching(/API key/) })
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0)
    const list = await app.inject({
      method: 'GET',
      url: `/v1/domains?controller=${busy.account}`,
      headers: auth(calm.key),
      remoteAddress: clientIp()
    })
    expect(list.statusCode).toBe(200)
    expect(list.json().items).toHaveLength(0)
  })

  it('limits each client on every route but the probes, with the limit headers on normal answers', async () => {
    const { app } = t
    const ip = clientIp()
    const first = await app.inject({ method: 'GET', url: '/docs/json', remoteAddress: ip })
    expect(first.headers['x-ratelimit-limit']).toBe('8')
    expect(first.headers['x-ratelimit-remaining']).toBe('7')
    const statuses = [first.statusCode]
    for (let i = 0; i < 8; i++) {
      const url = i % 2 === 0 ? '/no-such-route' : '/docs/json'
      statuses.push((await app.inject({ method: 'GET', url, remoteAddress: ip })).statusCode)
    }
    expect(statuses).toEqual([200, 404, 200, 404, 200, 404, 200, 404, 429])
    for (let i = 0; i < 6; i++) {
      expect((await app.inject({ method: 'GET', url: '/health', remoteAddress: ip })).statusCode).toBe(200)
      expect((await app.inject({ method: 'GET', url: '/health/live', remoteAddress: ip })).statusCode).toBe(200)
    }
  })

  it('ignores X-Forwarded-For from a client that is not a trusted proxy', async () => {
    const forged = []
    for (let i = 0; i < 7; i++) {
      const res = await t.app.inject({
        method: 'GET',
        url: '/v1/domains',
        headers: { ...wrongKey(), 'x-forwarded-for': clientIp() },
        remoteAddress: '203.0.113.7'
      })
      forged.push(res.statusCode)
    }
    expect(forged).toEqual([401, 401, 401, 401, 401, 429, 429])
  })

  it('documents the 429 in the OpenAPI document', async () => {
    const spec = (await t.app.inject({ method: 'GET', url: '/docs/json', remoteAddress: clientIp() })).json()
    expect(spec.paths['/v1/domains'].post.responses['429'].headers['retry-after']).toBeDefined()
    expect(spec.paths['/v1/api-keys/current'].get.responses['429']).toBeDefined()
  })
})

describe('rate limits with the default failure budget behind a trusted proxy', () => {
  const budget = ConfigSchema.properties.RATE_LIMIT_AUTH_FAILURES_MAX.default
  let t: TestApp
  beforeAll(async () => {
    t = await startApp(
      { RATE_LIMIT_AUTH_FAILURES_MAX: String(budget), TRUST_PROXY_ENABLED: 'true' },
      { statePrefix: testPrefix() }
    )
  })
  afterAll(async () => { await t?.close() })

  it('meets a flood of wrong API keys with 429 and Retry-After long before 2,100 attempts', async () => {
    const ip = clientIp()
    let attempts = 0
    let res
    do {
      res = await t.app.inject({ method: 'GET', url: '/v1/domains', headers: wrongKey(), remoteAddress: ip })
      attempts++
    } while (res.statusCode === 401 && attempts < 2100)
    expect(res.statusCode).toBe(429)
    expect(attempts).toBe(budget + 1)
    expect(res.json()).toMatchObject({ statusCode: 429, error: 'Too Many Requests', code: 'DOMAIN_RATE_LIMITED' })
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0)
  })

  it('counts each client behind the proxy on its own (the X-Forwarded-For address)', async () => {
    const statuses = new Set<number>()
    for (let i = 0; i <= budget; i++) {
      const res = await t.app.inject({
        method: 'GET',
        url: '/v1/domains',
        headers: { ...wrongKey(), 'x-forwarded-for': clientIp() },
        remoteAddress: '127.0.0.1'
      })
      statuses.add(res.statusCode)
    }
    expect([...statuses]).toEqual([401])
  })
})

describe.runIf(servers)('rate limits on two replicas on PostgreSQL and Redis', () => {
  it('shares the failed-authentication and per-key budgets between replicas', async () => {
    const database = await createTestDatabase()
    const options = { database, statePrefix: testPrefix() }
    const env = { RATE_LIMIT_AUTH_FAILURES_MAX: '4', RATE_LIMIT_PRINCIPAL_MAX: '4' }
    const [a, b] = [await startApp(env, options), await startApp(env, options)]
    onTestFinished(async () => {
      await a.close()
      await b.close()
      await database.drop()
    })
    const ip = clientIp()
    const failures = []
    for (let i = 0; i < 6; i++) {
      const replica = [a, b][i % 2]!
      const res = await replica.app.inject({
        method: 'GET',
        url: '/v1/domains',
        headers: wrongKey(),
        remoteAddress: ip
      })
      failures.push(res.statusCode)
    }
    expect(failures).toEqual([401, 401, 401, 401, 429, 429])

    const key = await a.issueKey(['voter'])
    const calls = []
    for (let i = 0; i < 6; i++) {
      const replica = [a, b][i % 2]!
      const res = await replica.app.inject({ method: 'GET', url: '/v1/api-keys/current', headers: a.auth(key.key) })
      calls.push(res.statusCode)
    }
    expect(calls).toEqual([200, 200, 200, 200, 429, 429])
    const admin = await b.app.inject({ method: 'GET', url: '/v1/api-keys/current', headers: b.auth(ADMIN_KEY) })
    expect(admin.statusCode).toBe(200)
  })
})
