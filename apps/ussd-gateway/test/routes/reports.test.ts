import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testClock, until } from '@impact/service-kit/testing'
import {
  createAccount,
  Dialer,
  OPERATOR_TOKEN,
  setupApp,
  type TestApp,
  type TestContext
} from '../helper.ts'

const TTL_MS = 180_000
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)

const dropOff = (app: TestApp, query: string, token = OPERATOR_TOKEN) => app.inject({
  method: 'GET',
  url: `/api/ussd/reports/drop-off?${query}`,
  headers: { authorization: `Bearer ${token}` }
})

const notify = (app: TestApp, phone: Dialer, fields: Record<string, string>) => app.inject({
  method: 'POST',
  url: '/api/ussd/events',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  payload: new URLSearchParams({
    sessionId: phone.sessionId,
    phoneNumber: phone.phoneNumber,
    serviceCode: phone.options.serviceCode ?? '*384*123#',
    networkCode: '63902',
    input: phone.text,
    lastAppResponse: 'CON Enter your 5-digit PIN:',
    ...fields
  }).toString()
})

describe('session records and GET /api/ussd/reports/drop-off', () => {
  let ctx: TestContext
  const clock = testClock()
  beforeAll(async () => {
    ctx = await setupApp({ USSD_SESSION_TTL_SECONDS: String(TTL_MS / 1000) }, { now: clock.now, recordSweepMs: 50 })
  })
  afterAll(async () => { await ctx?.close() })

  const recordsOf = (sessionId: string, token = OPERATOR_TOKEN) => ctx.app.inject({
    method: 'GET',
    url: `/api/ussd/reports/sessions/${encodeURIComponent(sessionId)}`,
    headers: { authorization: `Bearer ${token}` }
  })
  /** The session's record, once it is written (off the hop's path). */
  const recordOf = async (sessionId: string) => {
    await until(async () => (await recordsOf(sessionId)).statusCode === 200)
    const { records } = (await recordsOf(sessionId)).json()
    expect(records).toHaveLength(1)
    return records[0]
  }

  it('records a session the gateway ended, and adds the aggregator\'s status and cost when it notifies', async () => {
    const phone = new Dialer(ctx.app, { serviceCode: '*500#' })
    await phone.dial()
    await phone.send('1')
    await phone.send('*')
    clock.advance(4000)
    expect((await phone.send('*')).body).toMatch(/^END Thank you for using/)
    expect(await recordOf(phone.sessionId)).toEqual({
      serviceCode: '*500#',
      networkCode: '63902',
      hops: 4,
      lastState: 'preMenu',
      endReason: 'end',
      startedAt: new Date(clock.now() - 4000).toISOString(),
      endedAt: new Date(clock.now()).toISOString(),
      durationMs: 4000,
      aggregatorStatus: null,
      aggregatorCost: null
    })
    const notified = await notify(ctx.app, phone, { status: 'Success', cost: 'KES 0.0500' })
    expect(notified.json()).toEqual({ received: true })
    await until(async () => (await recordOf(phone.sessionId)).aggregatorStatus !== null)
    expect(await recordOf(phone.sessionId)).toMatchObject({ aggregatorStatus: 'Success', aggregatorCost: 'KES 0.0500' })
  })

  it('records a session the user left at the PIN prompt, with no PIN, phone number or text in it', async () => {
    const { customerId } = await createAccount(ctx)
    const phone = new Dialer(ctx.app)
    await phone.dial('2*1')
    await phone.send(customerId)
    await phone.send('73196')
    await notify(ctx.app, phone, { status: 'Incomplete', cost: 'KES 0.1000', input: `2*1*${customerId}*73196` })
    const record = await recordOf(phone.sessionId)
    expect(record).toMatchObject({
      lastState: 'loginPin',
      endReason: 'user',
      hops: 3,
      aggregatorStatus: 'Incomplete',
      aggregatorCost: 'KES 0.1000'
    })
    const stored = JSON.stringify(record)
    for (const secret of ['73196', phone.phoneNumber, customerId, 'Enter']) expect(stored).not.toContain(secret)
  })

  it('records a session that timed out on its last screen, once, whichever notice comes after', async () => {
    const phone = new Dialer(ctx.app)
    await phone.dial('2*2')
    expect((await recordsOf(phone.sessionId)).json().code).toBe('USSD_SESSION_RECORD_NOT_FOUND')
    clock.advance(30_000)
    await phone.send('Wanjiku Muthoni')
    const lastHop = clock.now()
    clock.advance(TTL_MS + 1)
    expect(await recordOf(phone.sessionId)).toMatchObject({
      lastState: 'createEmail',
      endReason: 'timeout',
      hops: 2,
      durationMs: 30_000,
      endedAt: new Date(lastHop + TTL_MS).toISOString(),
      aggregatorStatus: null
    })
    await notify(ctx.app, phone, { status: 'Failed', cost: 'KES 0.0800' })
    await until(async () => (await recordOf(phone.sessionId)).aggregatorStatus === 'Failed')
    expect((await recordsOf(phone.sessionId, 'wrong-token-0123456789')).statusCode).toBe(401)
  })

  it('records Hubtel sessions ended by its release (the user) and timeout notices', async () => {
    const hubtel = (SessionId: string, Type: string, Sequence: number, Message: string) => ctx.app.inject({
      method: 'POST',
      url: '/api/ussd/hubtel',
      payload: { Type, Mobile: '233201234567', SessionId, ServiceCode: '713', Message, Sequence, Operator: 'mtn' }
    })
    await hubtel('h-timeout', 'Initiation', 1, '*713#')
    await hubtel('h-timeout', 'Response', 2, '2')
    await hubtel('h-timeout', 'Timeout', 3, '')
    await hubtel('h-release', 'Initiation', 1, '*713#')
    await hubtel('h-release', 'Release', 2, '')
    expect(await recordOf('h-timeout')).toMatchObject({
      serviceCode: '*713#', networkCode: 'mtn', lastState: 'accountMenu', endReason: 'timeout', hops: 2
    })
    expect(await recordOf('h-release')).toMatchObject({ lastState: 'preMenu', endReason: 'user', hops: 1 })
  })

  it('reports, per screen, how many sessions ended there and how', async () => {
    const before = (await dropOff(ctx.app, `date=${day(clock.now())}&serviceCode=*700%23`)).json()
    expect(before).toEqual({
      date: day(clock.now()), serviceCode: '*700#', sessions: 0, end: 0, user: 0, timeout: 0, screens: []
    })
    const at = async (inputs: string[]) => {
      const phone = new Dialer(ctx.app, { serviceCode: '*700#' })
      await phone.dial()
      for (const input of inputs) await phone.send(input)
      return phone
    }
    const left = await at(['2', '1'])
    await notify(ctx.app, left, { status: 'Incomplete' })
    await at(['*'])
    await at(['*'])
    const idle = await at(['2'])
    await recordOf(left.sessionId)
    clock.advance(TTL_MS + 1)
    await recordOf(idle.sessionId)
    const query = `date=${day(clock.now())}&serviceCode=*700%23`
    await until(async () => (await dropOff(ctx.app, query)).json().sessions === 4)
    const report = await dropOff(ctx.app, query)
    expect(report.statusCode).toBe(200)
    expect(report.json()).toEqual({
      date: day(clock.now()),
      serviceCode: '*700#',
      sessions: 4,
      end: 2,
      user: 1,
      timeout: 1,
      screens: [
        { state: 'preMenu', sessions: 2, end: 2, user: 0, timeout: 0 },
        { state: 'accountMenu', sessions: 1, end: 0, user: 0, timeout: 1 },
        { state: 'loginId', sessions: 1, end: 0, user: 1, timeout: 0 }
      ]
    })
    const all = (await dropOff(ctx.app, `date=${day(clock.now())}`)).json()
    expect(all.serviceCode).toBeNull()
    expect(all.sessions).toBeGreaterThanOrEqual(7)
    const dayBefore = (await dropOff(ctx.app, `date=${day(clock.now() - 86_400_000)}`)).json()
    expect(dayBefore.screens).toEqual([])
  })

  it('records every one of a burst of sessions that end together, each once', async () => {
    const query = `date=${day(clock.now())}&serviceCode=*701%23`
    const burst = Array.from({ length: 250 }, () => new Dialer(ctx.app, { serviceCode: '*701#' }))
    await Promise.all(burst.map(async (phone) => { await phone.dial() }))
    const ended = await Promise.all(burst.map(async (phone) => (await phone.send('*')).body))
    expect(ended.every((body) => body.startsWith('END '))).toBe(true)
    await until(async () => (await dropOff(ctx.app, query)).json().sessions === 250)
    expect((await dropOff(ctx.app, query)).json()).toMatchObject({ sessions: 250, end: 250 })
    expect((await recordsOf(burst[0]!.sessionId)).json().records).toHaveLength(1)
  })

  it('refuses days that do not exist, malformed queries and callers without the operator token', async () => {
    const malformed = ['date=2026-02-30', 'date=yesterday', '', 'date=2026-12-01&serviceCode=384', 'date=2026-1-01']
    for (const query of malformed) {
      const res = await dropOff(ctx.app, query)
      expect(res.statusCode, query).toBe(400)
      expect(res.json().statusCode).toBe(400)
    }
    expect((await dropOff(ctx.app, 'date=2026-02-30')).json().code).toBe('USSD_REPORT_DATE_INVALID')
    expect((await dropOff(ctx.app, 'date=2026-12-01', 'wrong-token-0123456789')).statusCode).toBe(401)
    const docs = (await ctx.app.inject({ method: 'GET', url: '/docs/json' })).json()
    expect(docs.paths['/api/ussd/reports/drop-off'].get.security).toEqual([{ operatorToken: [] }])
  })
})

describe('session record retention', () => {
  let ctx: TestContext
  const clock = testClock()
  beforeAll(async () => {
    ctx = await setupApp({ USSD_SESSION_RECORD_RETENTION_DAYS: '30' }, { now: clock.now, recordSweepMs: 50 })
  })
  afterAll(async () => { await ctx?.close() })

  it('purges records older than USSD_SESSION_RECORD_RETENTION_DAYS in its periodic sweep', async () => {
    const phone = new Dialer(ctx.app)
    await phone.dial()
    await phone.send('*')
    const today = day(clock.now())
    await until(async () => (await dropOff(ctx.app, `date=${today}`)).json().sessions === 1)
    clock.advance(29 * 86_400_000)
    // Several sweeps run, and purge what is older than 30 days only.
    await sleep(300)
    expect((await dropOff(ctx.app, `date=${today}`)).json().sessions).toBe(1)
    clock.advance(2 * 86_400_000)
    await until(async () => (await dropOff(ctx.app, `date=${today}`)).json().sessions === 0)
  })
})
