import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listenWithMetrics } from '@impact/service-kit'
import { scrapeMetrics, scrapeWhen, testClock, type Scrape } from '@impact/service-kit/testing'
import { createAccount, Dialer, setupApp, type TestContext } from './helper.ts'
import { startSmsAggregator, type SmsAggregator } from './sms-aggregator.ts'

const TTL_MS = 180_000

const notifyEnd = (ctx: TestContext, phone: Dialer) => ctx.app.inject({
  method: 'POST',
  url: '/api/ussd/events',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  payload: new URLSearchParams({
    sessionId: phone.sessionId,
    phoneNumber: phone.phoneNumber,
    serviceCode: '*384*123#',
    networkCode: '63902',
    status: 'Incomplete',
    input: phone.text
  }).toString()
})

describe('ussd-gateway metrics', () => {
  let ctx: TestContext
  let address: string
  let metricsUrl: string
  const clock = testClock()
  beforeAll(async () => {
    ctx = await setupApp({ USSD_SESSION_TTL_SECONDS: String(TTL_MS / 1000) }, { now: clock.now, recordSweepMs: 50 })
    const listening = await listenWithMetrics(ctx.app, { host: '127.0.0.1', port: 0 })
    address = listening.address
    metricsUrl = listening.metricsUrl!
  })
  afterAll(async () => { await ctx?.close() })

  const scrape = async () => await scrapeMetrics(metricsUrl)

  it('counts sessions, hops and how they ended, with drop-offs by the screen left on', async () => {
    const before = await scrape()
    const done = new Dialer(ctx.app, { serviceCode: '*500#' })
    await done.dial()
    await done.send('1')
    await done.send('*')
    expect((await done.send('*')).body).toMatch(/^END /)

    const abandoned = new Dialer(ctx.app)
    await abandoned.dial('2*1')
    await notifyEnd(ctx, abandoned)

    const idle = new Dialer(ctx.app)
    await idle.dial()
    await idle.send('2')
    clock.advance(TTL_MS + 1)

    const after = await scrapeWhen(metricsUrl, 'ussd_sessions_ended_total', {},
      before.value('ussd_sessions_ended_total') + 3)
    const delta = (name: string, labels: Record<string, string> = {}) =>
      after.value(name, labels) - before.value(name, labels)
    expect(delta('ussd_sessions_started_total')).toBe(3)
    expect(delta('ussd_sessions_ended_total', { reason: 'end' })).toBe(1)
    expect(delta('ussd_sessions_ended_total', { reason: 'user' })).toBe(1)
    expect(delta('ussd_sessions_ended_total', { reason: 'timeout' })).toBe(1)
    expect(delta('ussd_session_hops')).toBe(3)
    expect(after.sum('ussd_session_hops') - before.sum('ussd_session_hops')).toBe(4 + 1 + 2)
    expect(delta('ussd_session_dropoffs_total', { screen: 'loginId', reason: 'abandon' })).toBe(1)
    expect(delta('ussd_session_dropoffs_total', { screen: 'accountMenu', reason: 'timeout' })).toBe(1)
    expect(delta('ussd_session_dropoffs_total')).toBe(2)
  }, 20_000)

  it('counts wrong PINs and lockouts', async () => {
    const before = await scrape()
    const { customerId } = await createAccount(ctx)
    const phone = new Dialer(ctx.app)
    await phone.dial('2*1')
    await phone.send(customerId)
    for (const pin of ['11112', '11113', '11114']) await phone.send(pin)
    const after = await scrape()
    expect(after.value('ussd_pin_failures_total') - before.value('ussd_pin_failures_total')).toBe(3)
    expect(after.value('ussd_pin_lockouts_total') - before.value('ussd_pin_lockouts_total')).toBe(1)
  }, 20_000)

  it('labels requests by route template, and times database queries and shared-state commands', async () => {
    const reply = await fetch(`${address}/api/ussd/accounts/C12345678`, { headers: { authorization: 'Bearer nope' } })
    expect(reply.status).toBe(401)
    const after: Scrape = await scrapeWhen(metricsUrl, 'http_request_duration_seconds',
      { route: '/api/ussd/accounts/:customerId' }, 1)
    const routes = after.labelSets('http_request_duration_seconds').map((labels) => labels.route)
    expect(routes).toContain('/api/ussd')
    expect(routes.some((route) => /C[0-9A-F]{8}|\+\d+/.test(route ?? ''))).toBe(false)
    expect(after.value('http_request_duration_seconds', { route: '/api/ussd', status_class: '2xx' }))
      .toBeGreaterThan(0)
    expect(after.value('db_query_duration_seconds', { outcome: 'ok' })).toBeGreaterThan(0)
    // Timed only against Redis (in-process commands take microseconds).
    const redis = process.env.REDIS_URL !== undefined && process.env.REDIS_URL !== ''
    expect(after.value('shared_state_command_duration_seconds', { operation: 'set', outcome: 'ok' }) > 0).toBe(redis)
    for (const labels of after.labelSets('ussd_session_dropoffs_total')) expect(labels.screen).toMatch(/^[a-zA-Z]+$/)
  })

  it('serves no /metrics on the app port', async () => {
    expect((await fetch(`${address}/metrics`)).status).toBe(404)
  })
})

describe('ussd-gateway SMS metrics', () => {
  const API_KEY = 'atsk_test_0123456789abcdef0123456789abcdef'
  let aggregator: SmsAggregator
  let ctx: TestContext
  beforeAll(async () => {
    aggregator = await startSmsAggregator(API_KEY)
    ctx = await setupApp({
      SMS_PROVIDER: 'africastalking',
      SMS_BASE_URL: aggregator.url,
      SMS_USERNAME: 'sandbox',
      SMS_API_KEY: API_KEY
    })
  })
  afterAll(async () => {
    await ctx?.close()
    await aggregator?.close()
  })

  it('counts the SMS sent, by kind', async () => {
    const { metricsUrl } = await listenWithMetrics(ctx.app, { host: '127.0.0.1', port: 0 })
    await createAccount(ctx)
    const after = await scrapeWhen(metricsUrl!, 'ussd_sms_total', { outcome: 'sent' }, 1)
    expect(after.value('ussd_sms_total', { kind: 'customerId', outcome: 'sent' })).toBe(1)
    expect(after.value('ussd_sms_total', { outcome: 'failed' })).toBe(0)
  }, 20_000)
})

describe('ussd-gateway with METRICS_PORT=0', () => {
  it('opens no metrics listener and still answers hops', async () => {
    const ctx = await setupApp({ METRICS_PORT: '0' })
    try {
      const { metricsUrl } = await listenWithMetrics(ctx.app, { host: '127.0.0.1', port: 0 })
      expect(metricsUrl).toBeUndefined()
      expect((await new Dialer(ctx.app).dial()).con).toBe(true)
    } finally {
      await ctx.close()
    }
  }, 20_000)
})
