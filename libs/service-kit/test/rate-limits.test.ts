import { randomBytes } from 'node:crypto'
import { Type } from '@sinclair/typebox'
import { createSharedState, type SharedState } from '@impact/shared-state'
import { describe, expect, it, onTestFinished } from 'vitest'
import { defineError, staticBearerGuard } from '../src/index.ts'
import { registerRateLimits, type Budget } from '../src/plugins/rate-limits.ts'
import { buildTestApp } from './helper.ts'

const RateLimitedError = defineError('TEST_RATE_LIMITED', '%s; retry in %s seconds', 429)
const redisUrl = process.env.REDIS_URL
const modes = [
  { mode: 'in process', url: undefined },
  ...(redisUrl !== undefined && redisUrl !== '' ? [{ mode: 'Redis', url: redisUrl }] : [])
]
const roomy: Budget = { max: 1000, windowMs: 60_000 }
const clientIp = () => `10.${[1, 2, 3].map(() => randomBytes(1)[0]).join('.')}`

interface Budgets { client?: Budget, authFailures?: Budget, principal?: Budget }

/** An app limited on `state` (closed with it when the test ends); budgets not given are roomy. */
async function rateLimitedApp (state: SharedState, namespace: string, budgets: Budgets = {}) {
  const app = await buildTestApp()
  onTestFinished(async () => {
    await app.close()
    await state.close()
  })
  await registerRateLimits(app, {
    state,
    namespace,
    client: budgets.client ?? roomy,
    authFailures: budgets.authFailures ?? roomy,
    principal: {
      ...budgets.principal ?? roomy,
      label: 'user',
      of: (request) => request.headers['x-user'] as string | undefined
    },
    error: (reason, seconds) => new RateLimitedError(reason, seconds)
  })
  return app
}

describe.each(modes)('registerRateLimits ($mode)', ({ url }) => {
  async function limitedApp (budgets: Budgets, namespace = `kit-test-${randomBytes(4).toString('hex')}:`) {
    const app = await rateLimitedApp(createSharedState({ url, prefix: 'kit-test:' }), namespace, budgets)
    app.get('/open', { schema: { response: { 200: Type.Object({ ok: Type.Boolean() }) } } }, async () => ({ ok: true }))
    app.get('/guarded', { onRequest: staticBearerGuard(['right-token']) }, async () => ({ ok: true }))
    return app
  }

  it('refuses a client over its budget with the coded 429, Retry-After and limit headers; ' +
    'others and /health still pass', async () => {
    const app = await limitedApp({ client: { max: 3, windowMs: 60_000 } })
    const ip = clientIp()
    const statuses = []
    for (let i = 0; i < 5; i++) statuses.push((await app.inject({ url: '/open', remoteAddress: ip })).statusCode)
    expect(statuses).toEqual([200, 200, 200, 429, 429])

    const refused = await app.inject({ url: '/open', remoteAddress: ip })
    expect(refused.json()).toEqual({
      statusCode: 429,
      error: 'Too Many Requests',
      code: 'TEST_RATE_LIMITED',
      message: expect.stringMatching(/^Too many requests from this client; retry in \d+ seconds$/)
    })
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0)
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60)
    expect(refused.headers['x-ratelimit-limit']).toBe('3')
    expect(refused.headers['x-ratelimit-remaining']).toBe('0')

    expect((await app.inject({ url: '/missing', remoteAddress: ip })).statusCode).toBe(429)
    for (let i = 0; i < 5; i++) {
      expect((await app.inject({ url: '/health/live', remoteAddress: ip })).statusCode).toBe(200)
    }
    const other = await app.inject({ url: '/open', remoteAddress: clientIp() })
    expect(other.statusCode).toBe(200)
    expect(other.headers['x-ratelimit-remaining']).toBe('2')
  })

  it('counts IPv6 clients per /64 prefix', async () => {
    const app = await limitedApp({ client: { max: 2, windowMs: 60_000 } })
    const prefix = `2001:db8:${randomBytes(2).toString('hex')}:1`
    const statuses = []
    for (const host of ['::1', '::2', '::3']) {
      statuses.push((await app.inject({ url: '/open', remoteAddress: `${prefix}${host}` })).statusCode)
    }
    expect(statuses).toEqual([200, 200, 429])
    const otherPrefix = await app.inject({
      url: '/open',
      remoteAddress: `2001:db8:${randomBytes(2).toString('hex')}:2::1`
    })
    expect(otherPrefix.statusCode).toBe(200)
  })

  it('refuses a client whose authentications failed too often, even with the right credentials', async () => {
    const app = await limitedApp({ authFailures: { max: 3, windowMs: 60_000 } })
    const ip = clientIp()
    const wrong = { authorization: 'Bearer wrong-token' }
    const statuses = []
    for (let i = 0; i < 6; i++) {
      statuses.push((await app.inject({ url: '/guarded', headers: wrong, remoteAddress: ip })).statusCode)
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429])

    const right = await app.inject({
      url: '/guarded',
      headers: { authorization: 'Bearer right-token' },
      remoteAddress: ip
    })
    expect(right.statusCode).toBe(429)
    expect(right.json()).toMatchObject({
      code: 'TEST_RATE_LIMITED',
      message: expect.stringMatching(/^Too many failed authentications from this client/)
    })
    expect(Number(right.headers['retry-after'])).toBeGreaterThan(0)

    const elsewhere = await app.inject({
      url: '/guarded',
      headers: { authorization: 'Bearer right-token' },
      remoteAddress: clientIp()
    })
    expect(elsewhere.statusCode).toBe(200)
  })

  it('refuses a principal over its budget from any address while another principal passes, ' +
    'reporting the tightest budget', async () => {
    const app = await limitedApp({ principal: { max: 2, windowMs: 60_000 } })
    const alice = { 'x-user': `alice-${randomBytes(4).toString('hex')}` }
    const first = await app.inject({ url: '/open', headers: alice, remoteAddress: clientIp() })
    expect(first.statusCode).toBe(200)
    expect(first.headers['x-ratelimit-limit']).toBe('2')
    expect(first.headers['x-ratelimit-remaining']).toBe('1')
    expect((await app.inject({ url: '/open', headers: alice, remoteAddress: clientIp() })).statusCode).toBe(200)
    const refused = await app.inject({ url: '/open', headers: alice, remoteAddress: clientIp() })
    expect(refused.statusCode).toBe(429)
    expect(refused.json().message).toMatch(/^Too many requests for this user/)
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0)

    const bob = await app.inject({
      url: '/open',
      headers: { 'x-user': `bob-${randomBytes(4).toString('hex')}` },
      remoteAddress: clientIp()
    })
    expect(bob.statusCode).toBe(200)
  })

  it('documents the 429 on every route that lists its responses', async () => {
    const app = await limitedApp({})
    const spec = (await app.inject({ url: '/docs/json' })).json()
    const tooMany = spec.paths['/open'].get.responses['429']
    expect(tooMany.description).toMatch(/rate limit/)
    expect(Object.keys(tooMany.headers)).toContain('retry-after')
    expect(spec.paths['/health'].get.responses['429']).toBeUndefined()
  })
})

describe('registerRateLimits while Redis is unreachable', () => {
  it('answers 503 SERVICE_UNAVAILABLE rather than serving unlimited, and the probes still answer', async () => {
    const state = createSharedState({ url: 'redis://127.0.0.1:1', prefix: 'kit-test:', commandTimeoutMs: 200 })
    const app = await rateLimitedApp(state, 'kit-test:')
    app.get('/open', async () => ({ ok: true }))
    const res = await app.inject({ url: '/open' })
    expect(res.statusCode).toBe(503)
    expect(res.json().code).toBe('SERVICE_UNAVAILABLE')
    expect((await app.inject({ url: '/health/live' })).statusCode).toBe(200)
  })
})

describe.runIf(redisUrl !== undefined && redisUrl !== '')('registerRateLimits on two replicas sharing Redis', () => {
  it('draws both replicas on one budget per client', async () => {
    const namespace = `kit-test-${randomBytes(4).toString('hex')}:`
    const apps = await Promise.all([0, 1].map(async () => {
      const state = createSharedState({ url: redisUrl, prefix: 'kit-test:' })
      const app = await rateLimitedApp(state, namespace, { client: { max: 4, windowMs: 60_000 } })
      app.get('/open', async () => ({ ok: true }))
      return app
    }))
    const ip = clientIp()
    const statuses = []
    for (let i = 0; i < 6; i++) {
      statuses.push((await apps[i % 2]!.inject({ url: '/open', remoteAddress: ip })).statusCode)
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429])
  })
})
