import { setTimeout as sleep } from 'node:timers/promises'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { captureLogs, type CapturedLogs } from '@impact/service-kit/testing'
import {
  atSignUpConfirmation,
  Dialer,
  openDirect,
  SESSION_STORES,
  setupRelayedApp,
  type RelayedContext,
  type TestApp
} from './helper.ts'

const UNAVAILABLE = 'END Service temporarily unavailable. Please try again later.'
const DEADLINE_MS = 2000

const onServer = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== ''

// PGlite runs inside the app's process, so nothing can cut it; this runs against a PostgreSQL server.
// Sessions in-process (where a hop changes the stored session in place and a failed one must be
// undone) and, when the machine has Redis, in the shared store.
describe.runIf(onServer).each(SESSION_STORES)('database outage, $store', ({ redis }) => {
  let ctx: RelayedContext
  let app: TestApp
  let logs: CapturedLogs

  beforeAll(async () => {
    logs = captureLogs()
    const env = { LOG_LEVEL: 'warn', USSD_HOP_DEADLINE_MS: String(DEADLINE_MS) }
    ctx = await setupRelayedApp('outage', redis, env, logs.stream)
    app = ctx.app
  })
  afterAll(async () => { await ctx?.close() })

  it('answers the unavailable END text and /health 503 while the database is down, ' +
    'then recovers without a restart', async () => {
    expect((await new Dialer(app).dial()).body).toMatch(/^CON Welcome/)
    expect((await app.inject({ method: 'GET', url: '/health' })).json())
      .toMatchObject({ status: 'ok', database: 'connected' })
    const signup = await atSignUpConfirmation(ctx)

    ctx.relay.cut()
    const failed = await signup.send('48213')
    expect(failed).toMatchObject({ status: 200, body: UNAVAILABLE })
    expect(failed.type).toMatch(/^text\/plain/)
    expect((await new Dialer(app).dial()).body).toBe(UNAVAILABLE)
    const health = await app.inject({ method: 'GET', url: '/health' })
    expect(health.statusCode).toBe(503)
    expect(health.json()).toMatchObject({ status: 'degraded', database: 'disconnected' })

    ctx.relay.restore()
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200)
    expect((await new Dialer(app).dial()).body).toMatch(/^CON Welcome/)
    // The aggregator retries the failed hop: it is applied now, not answered as a replay of the PIN prompt.
    const retried = await signup.post(signup.text)
    expect(retried.screen).toMatch(/^Account created!/)
  })

  it('answers the unavailable END at the hop deadline while the database hangs; ' +
    'a hop still queued then never runs', async () => {
    // Another client holds a lock on the table a first hop reads: the hop's query waits on the server.
    const holder = await openDirect(ctx.database)
    let release = () => {}
    let locked = () => {}
    const held = new Promise<void>((resolve) => { locked = resolve })
    const holding = holder.db.transaction().execute(async (trx) => {
      await sql`LOCK TABLE ussd_phone_preferences IN ACCESS EXCLUSIVE MODE`.execute(trx)
      locked()
      await new Promise<void>((resolve) => { release = resolve })
    })
    try {
      await held
      const phone = new Dialer(app)
      const started = Date.now()
      // The first hop waits on the database; a second one of the same session queues behind it.
      const stalling = phone.dial()
      await sleep(300)
      const queued = await phone.post('1')
      const stalled = await stalling
      expect(stalled).toMatchObject({ status: 200, body: UNAVAILABLE })
      expect(queued).toMatchObject({ status: 200, body: UNAVAILABLE })
      expect(Date.now() - started).toBeGreaterThanOrEqual(DEADLINE_MS - 50)
      expect(Date.now() - started).toBeLessThan(DEADLINE_MS + 3000)
      release()
      await holding
      // The first hop finishes (its reply dropped) and releases the session; the queued one, told
      // it failed, did nothing: the session is still at the welcome screen, not in Know More.
      await expect.poll(() => logs.text(), { timeout: 5000 }).toMatch(/"outcome":"skipped"/)
      expect(logs.text()).toMatch(/"outcome":"applied"[^\n]*"msg":"ussd hop finished after its deadline"/)
      expect((await phone.post('')).body).toMatch(/^CON Welcome/)
      expect((await new Dialer(app, { phoneNumber: phone.phoneNumber }).dial()).body).toMatch(/^CON Welcome/)
    } finally {
      release()
      await holding.catch(() => {})
      await holder.close()
    }
  })
})
