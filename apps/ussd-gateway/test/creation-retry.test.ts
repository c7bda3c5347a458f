import { openDatabase, type Database } from '@impact/persistence'
import { createTestDatabase, type TestDatabase } from '@impact/persistence/testing'
import { startTcpRelay, type TcpRelay } from '@impact/service-kit/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import type { DB } from '../src/db/types.ts'
import { Dialer, dropRedisPrefix, TEST_PIN_KEY, type TestApp } from './helper.ts'

const UNAVAILABLE = 'END Service temporarily unavailable. Please try again later.'

// The answer to a committed insert is lost on the wire: only a PostgreSQL server behind a relay
// can do that (PGlite runs inside the app's process). Sessions in-process and, with Redis, shared.
const stores = [
  { store: 'in-process sessions', redis: undefined },
  ...(process.env.REDIS_URL !== undefined && process.env.REDIS_URL !== ''
    ? [{ store: 'Redis sessions', redis: process.env.REDIS_URL }]
    : [])
]
const onServer = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== ''

describe.runIf(onServer).each(stores)('sign-up retried after its answer was lost, $store', ({ redis }) => {
  let database: TestDatabase
  let relay: TcpRelay
  let app: TestApp
  let direct: Database<DB>
  const prefix = `test:ussd:creation:${process.pid}:${redis === undefined ? 'local' : 'redis'}:`

  beforeAll(async () => {
    database = await createTestDatabase()
    const url = new URL(database.url ?? '')
    relay = await startTcpRelay({ host: url.hostname, port: Number(url.port || 5432) })
    app = await buildApp(loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      ...database.env,
      DATABASE_URL: relay.through(url.toString()),
      REDIS_KEY_PREFIX: prefix,
      PIN_ENCRYPTION_KEY: TEST_PIN_KEY,
      ...(redis !== undefined ? { REDIS_URL: redis } : {})
    }))
    direct = await openDatabase<DB>({
      url: database.url,
      dataDir: database.dataDir,
      migrations: {},
      migrationTable: 'unused',
      migrate: 'never',
      poolMax: 1
    })
  })
  afterAll(async () => {
    await app?.close()
    await direct?.close()
    await relay?.close()
    await database?.drop()
    await dropRedisPrefix(prefix)
  })

  it('shows the account the lost hop created, and creates no second one', async () => {
    const signup = new Dialer(app)
    await signup.dial('2*2')
    for (const input of ['Halima Yusuf', '00', '48213']) await signup.send(input)
    const lost = relay.loseReply('insert into "ussd_accounts"', 'INSERT 0 1')
    expect((await signup.send('48213')).body).toBe(UNAVAILABLE)
    await lost
    const accounts = async () => await direct.db.selectFrom('ussd_accounts').select('customer_id')
      .where('phone_number', '=', signup.phoneNumber)
      .execute()
    const [created] = await accounts()
    expect(created).toBeDefined()

    // The aggregator retries the hop: the account is there, under the same id.
    const retried = await signup.post(signup.text)
    expect(retried.screen).toBe(`Account created!\nYour Customer ID: ${created?.customer_id ?? ''}\n` +
      'Keep it safe: you need it with your PIN to log in.\n1. My Account\n0. Main menu')
    expect(await accounts()).toHaveLength(1)
    expect((await signup.send('1')).screen).toMatch(/^My Account \(C[0-9A-F]{8}\)\n1\. Account details/)

    // The same user signing up again in a new session gets a new account.
    const again = new Dialer(app, { phoneNumber: signup.phoneNumber })
    await again.dial('2*2')
    for (const input of ['Halima Yusuf', '00', '48213']) await again.send(input)
    expect((await again.send('48213')).screen).toMatch(/^Account created!/)
    expect(await accounts()).toHaveLength(2)
  })
})
