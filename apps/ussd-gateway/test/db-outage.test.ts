import { setTimeout as sleep } from 'node:timers/promises'
import { sql } from 'kysely'
import { openDatabase } from '@impact/persistence'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '@impact/persistence/testing'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { captureLogs, Dialer, dropRedisPrefix, TEST_PIN_KEY, type CapturedLogs, type TestApp } from './helper.ts'
import { startRelay, type Relay } from './pg-relay.ts'

const UNAVAILABLE = 'END Service temporarily unavailable. Please try again later.'
const DEADLINE_MS = 2000

// PGlite runs inside the app's process, so nothing can cut it; this runs against a PostgreSQL server.
// Sessions in-process (where a hop changes the stored session in place and a failed one must be
// undone) and, when the machine has Redis, in the shared store.
const stores = [
  { store: 'in-process sessions', redis: undefined },
  ...(process.env.REDIS_URL !== undefined && process.env.REDIS_URL !== '' ? [{ store: 'Redis sessions', redis: process.env.REDIS_URL }] : [])
]
describe.runIf(process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== '').each(stores)('database outage, $store', ({ redis }) => {
  let database: TestDatabase
  let relay: Relay
  let app: TestApp
  let logs: CapturedLogs
  const prefix = `test:ussd:outage:${process.pid}:${redis === undefined ? 'local' : 'redis'}:`

  beforeAll(async () => {
    database = await createTestDatabase()
    const url = new URL(database.url ?? '')
    relay = await startRelay({ host: url.hostname, port: Number(url.port || 5432) })
    url.host = `127.0.0.1:${relay.port}`
    logs = captureLogs()
    app = await buildApp(loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      ...database.env,
      DATABASE_URL: url.toString(),
      REDIS_KEY_PREFIX: prefix,
      PIN_ENCRYPTION_KEY: TEST_PIN_KEY,
      USSD_HOP_DEADLINE_MS: String(DEADLINE_MS),
      ...(redis !== undefined ? { REDIS_URL: redis } : {})
    }), { logStream: logs.stream })
  })
  afterAll(async () => {
    await app?.close()
    await relay?.close()
    await database?.drop()
    await dropRedisPrefix(prefix)
  })

  it('answers the unavailable END text and /health 503 while the database is down, then recovers without a restart', async () => {
    expect((await new Dialer(app).dial()).body).toMatch(/^CON Welcome/)
    expect((await app.inject({ method: 'GET', url: '/health' })).json()).toMatchObject({ status: 'ok', database: 'connected' })
    const signup = new Dialer(app)
    await signup.dial('2*2')
    for (const input of ['Halima Yusuf', '00', '48213']) await signup.send(input)

    relay.cut()
    const failed = await signup.send('48213')
    expect(failed).toMatchObject({ status: 200, body: UNAVAILABLE })
    expect(failed.type).toMatch(/^text\/plain/)
    expect((await new Dialer(app).dial()).body).toBe(UNAVAILABLE)
    const health = await app.inject({ method: 'GET', url: '/health' })
    expect(health.statusCode).toBe(503)
    expect(health.json()).toMatchObject({ status: 'degraded', database: 'disconnected' })

    relay.restore()
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200)
    expect((await new Dialer(app).dial()).body).toMatch(/^CON Welcome/)
    // The aggregator retries the failed hop: it is applied now, not answered as a replay of the PIN prompt.
    const retried = await signup.post(signup.text)
    expect(retried.screen).toMatch(/^Account created!/)
  })

  it('answers the unavailable END at the hop deadline while the database hangs; a hop still queued then never runs', async () => {
    // Another client holds a lock on the table a first hop reads: the hop's query waits on the server.
    const holder = await openDatabase({ url: database.url, dataDir: database.dataDir, migrations: {}, migrationTable: 'unused', migrate: 'never', poolMax: 1 })
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
