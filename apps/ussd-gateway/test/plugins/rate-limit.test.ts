import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest'
import { Dialer, fileApp, newPhone, setupApp, type TestApp, type TestContext } from '../helper.ts'

const LIMITED = 'END Too many requests. Please wait a minute and try again.'
const WINDOW_MS = 1000
const redisUrl = process.env.REDIS_URL
const withRedis = redisUrl !== undefined && redisUrl !== ''

/** Moves the clock of the in-process counters (Redis keeps its own time): starts far past every open window. */
function fakeDate () {
  let now = Date.now() + 100 * WINDOW_MS
  vi.useFakeTimers({ toFake: ['Date'], now })
  onTestFinished(() => { vi.useRealTimers() })
  return { advance: (ms: number) => { vi.setSystemTime(now += ms) } }
}

const hop = (app: TestApp, headers: Record<string, string> = {}, phoneNumber = newPhone()) =>
  new Dialer(app, { phoneNumber, headers }).dial()

describe('rate limits behind a trusted proxy', () => {
  let ctx: TestContext
  beforeAll(async () => {
    ctx = await setupApp({
      TRUST_PROXY_ENABLED: 'true',
      RATE_LIMIT_MAX: '3',
      RATE_LIMIT_PHONE_MAX: '2',
      RATE_LIMIT_WINDOW_MS: String(WINDOW_MS),
      RATE_LIMIT_ALLOWLIST: '198.51.100.9'
    })
  })
  afterAll(async () => { await ctx?.close() })

  it('answers the request over RATE_LIMIT_MAX per client IP with 429 and a plain END text', async () => {
    const client = { 'x-forwarded-for': '203.0.113.10' }
    for (let i = 0; i < 3; i++) expect((await hop(ctx.app, client)).status).toBe(200)
    const limited = await hop(ctx.app, client)
    expect(limited.status).toBe(429)
    expect(limited.type).toMatch(/^text\/plain/)
    expect(limited.body).toBe(LIMITED)
    expect((await hop(ctx.app, { 'x-forwarded-for': '203.0.113.11' })).status).toBe(200)
  })

  it("takes the client IP from X-Forwarded-For: the proxy's own address is not throttled for everyone", async () => {
    for (let i = 0; i < 5; i++) {
      expect((await hop(ctx.app, { 'x-forwarded-for': `203.0.113.${20 + i}` })).status).toBe(200)
    }
  })

  it('takes the address the proxy saw, not an entry the client forged in front of it', async () => {
    // The proxy (loopback here) appends the address it saw to what the client sent: the client's own entry is ignored.
    for (let i = 0; i < 3; i++) {
      expect((await hop(ctx.app, { 'x-forwarded-for': `10.9.9.${i}, 203.0.113.30` })).status).toBe(200)
    }
    expect((await hop(ctx.app, { 'x-forwarded-for': '10.9.9.99, 203.0.113.30' })).body).toBe(LIMITED)
  })

  it('limits each phone number on its own, whatever the IP', async () => {
    const phoneNumber = newPhone()
    expect((await hop(ctx.app, { 'x-forwarded-for': '203.0.113.40' }, phoneNumber)).status).toBe(200)
    expect((await hop(ctx.app, { 'x-forwarded-for': '203.0.113.41' }, phoneNumber)).status).toBe(200)
    const limited = await ctx.app.inject({
      method: 'POST',
      url: '/api/ussd',
      headers: { 'x-forwarded-for': '203.0.113.42' },
      payload: { sessionId: `limited-${phoneNumber}`, serviceCode: '*384*123#', phoneNumber, text: '' }
    })
    expect(limited).toMatchObject({ statusCode: 429, body: LIMITED })
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1)
  })

  it('gives a phone one budget across the Africa\'s Talking and Hubtel routes', async () => {
    const phoneNumber = newPhone()
    expect((await hop(ctx.app, { 'x-forwarded-for': '203.0.113.45' }, phoneNumber)).status).toBe(200)
    expect((await hop(ctx.app, { 'x-forwarded-for': '203.0.113.46' }, phoneNumber)).status).toBe(200)
    const hubtel = await ctx.app.inject({
      method: 'POST',
      url: '/api/ussd/hubtel',
      headers: { 'x-forwarded-for': '203.0.113.47' },
      payload: {
        Type: 'Initiation',
        Mobile: phoneNumber.slice(1),
        SessionId: `hb-${phoneNumber}`,
        ServiceCode: '713',
        Message: '*713#',
        Sequence: 1
      }
    })
    expect(hubtel.statusCode).toBe(429)
    expect(hubtel.json()).toMatchObject({ Type: 'release', SessionId: `hb-${phoneNumber}` })
  })

  it('exempts allow-listed aggregator IPs from the IP limit only', async () => {
    for (let i = 0; i < 6; i++) expect((await hop(ctx.app, { 'x-forwarded-for': '198.51.100.9' })).status).toBe(200)
  })

  it.skipIf(withRedis)('opens again after the window', async () => {
    const clock = fakeDate()
    const client = { 'x-forwarded-for': '203.0.113.50' }
    for (let i = 0; i < 3; i++) await hop(ctx.app, client)
    expect((await hop(ctx.app, client)).status).toBe(429)
    clock.advance(WINDOW_MS)
    expect((await hop(ctx.app, client)).status).toBe(200)
  })

  it.skipIf(withRedis)('gives each client a window of its own in this process, as Redis does', async () => {
    const clock = fakeDate()
    const [early, late] = [{ 'x-forwarded-for': '203.0.113.51' }, { 'x-forwarded-for': '203.0.113.52' }]
    for (let i = 0; i < 3; i++) expect((await hop(ctx.app, early)).status).toBe(200)
    clock.advance(WINDOW_MS - 100)
    for (let i = 0; i < 3; i++) expect((await hop(ctx.app, late)).status).toBe(200)
    clock.advance(100)
    // The early client's window is over; the late one's still runs.
    expect((await hop(ctx.app, early)).status).toBe(200)
    expect((await hop(ctx.app, late)).body).toBe(LIMITED)
  })

  it.runIf(withRedis)('counts each client in a Redis key that expires with its window', async () => {
    const client = { 'x-forwarded-for': '203.0.113.53' }
    expect((await hop(ctx.app, client)).status).toBe(200)
    const redis = new Redis(redisUrl ?? '')
    try {
      const ttl = await redis.pttl(`${ctx.prefix}rl:203.0.113.53`)
      expect(ttl).toBeGreaterThan(0)
      expect(ttl).toBeLessThanOrEqual(WINDOW_MS)
    } finally {
      redis.disconnect()
    }
  })

  const hubtel = (ip: string, sessionId: unknown = `h${Math.random()}`) =>
    ctx.app.inject({
      method: 'POST',
      url: '/api/ussd/hubtel',
      headers: { 'x-forwarded-for': ip },
      payload: {
        Type: 'Initiation',
        Mobile: newPhone().slice(1),
        SessionId: sessionId,
        ServiceCode: '713',
        Message: '*713#',
        Sequence: 1
      }
    })

  it('answers 429 on the Hubtel route as a JSON release that names the session', async () => {
    for (let i = 0; i < 3; i++) expect((await hubtel('203.0.113.60')).statusCode).toBe(200)
    const limited = await hubtel('203.0.113.60', 'hubtel-over-the-limit')
    expect(limited.statusCode).toBe(429)
    expect(limited.json()).toMatchObject({
      SessionId: 'hubtel-over-the-limit',
      Type: 'release',
      Message: 'Too many requests. Please wait a minute and try again.'
    })
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    // A malformed body over the limit is refused too, without echoing what is not a session id.
    const malformed = await hubtel('203.0.113.60', 'x'.repeat(101))
    expect(malformed.statusCode).toBe(429)
    expect(malformed.json()).not.toHaveProperty('SessionId')
  })

  it('gives an IP one budget across the Africa\'s Talking and Hubtel routes', async () => {
    const client = { 'x-forwarded-for': '203.0.113.61' }
    expect((await hop(ctx.app, client)).status).toBe(200)
    expect((await hubtel('203.0.113.61')).statusCode).toBe(200)
    expect((await hop(ctx.app, client)).status).toBe(200)
    expect((await hubtel('203.0.113.61')).statusCode).toBe(429)
    expect((await hop(ctx.app, client)).body).toBe(LIMITED)
  })

  it.runIf(withRedis)('shares the budget across replicas through Redis', async () => {
    const other = await ctx.replica()
    const client = { 'x-forwarded-for': '203.0.113.70' }
    expect((await hop(ctx.app, client)).status).toBe(200)
    expect((await hop(other, client)).status).toBe(200)
    expect((await hop(ctx.app, client)).status).toBe(200)
    expect((await hop(other, client)).status).toBe(429)
    // The phone budget too, under a key that names it.
    const phoneNumber = newPhone()
    expect((await hop(ctx.app, { 'x-forwarded-for': '203.0.113.71' }, phoneNumber)).status).toBe(200)
    expect((await hop(other, { 'x-forwarded-for': '203.0.113.72' }, phoneNumber)).status).toBe(200)
    expect((await hop(other, { 'x-forwarded-for': '203.0.113.73' }, phoneNumber)).status).toBe(429)
    const redis = new Redis(redisUrl ?? '')
    try {
      const [key, ...others] = await redis.keys(`${ctx.prefix}rl:*phone:${phoneNumber}`)
      expect(others).toEqual([])
      expect(await redis.get(key ?? '')).toBe('3')
    } finally {
      redis.disconnect()
    }
  })
})

describe('rate limits without a trusted proxy', () => {
  const ctx = fileApp({ RATE_LIMIT_MAX: '3' })

  it('ignores X-Forwarded-For, so a client cannot dodge the limit by forging it', async () => {
    for (let i = 0; i < 3; i++) {
      expect((await hop(ctx.app, { 'x-forwarded-for': `203.0.113.${80 + i}` })).status).toBe(200)
    }
    expect((await hop(ctx.app, { 'x-forwarded-for': '203.0.113.99' })).body).toBe(LIMITED)
  })
})
