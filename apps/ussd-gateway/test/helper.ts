import { randomBytes, randomUUID } from 'node:crypto'
import type { Writable } from 'node:stream'
import { Redis } from 'ioredis'
import { afterAll, beforeAll } from 'vitest'
import { openDatabase } from '@impact/persistence'
import { createTestDatabase, type TestDatabase } from '@impact/persistence/testing'
import { freshIdentity, startTcpRelay, type TcpRelay } from '@impact/service-kit/testing'
import { buildApp, type BuildOptions } from '../src/app.ts'
import { loadConfig, type Config } from '../src/config.ts'
import type { DB } from '../src/db/types.ts'
import { MAX_REPLY_CHARS, gsm7Length } from '../src/services/screen.ts'

export type TestApp = Awaited<ReturnType<typeof buildApp>>
export const OPERATOR_TOKEN = 'test-operator-token-0123456789'
export const SUPPORT_TOKEN = 'test-support-token-9876543210'
export const TEST_PIN_KEY = 'a'.repeat(64)

/** Deletes every Redis key under a test's prefix (no-op without REDIS_URL). */
export async function dropRedisPrefix (prefix: string): Promise<void> {
  const url = process.env.REDIS_URL
  if (url === undefined || url === '') return
  const redis = new Redis(url)
  try {
    let cursor = '0'
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000)
      cursor = next
      if (keys.length > 0) await redis.del(...keys)
    } while (cursor !== '0')
  } finally {
    redis.disconnect()
  }
}

export interface TestContext {
  app: TestApp
  config: Config
  database: TestDatabase
  prefix: string
  /** Builds another app (replica) on the same database and Redis prefix. */
  replica: (env?: Record<string, string>) => Promise<TestApp>
  close: () => Promise<void>
}

/**
 * One app per test file on an isolated database (PGlite, or a fresh PostgreSQL database with
 * DATABASE_URL) and, with REDIS_URL, its own Redis key prefix. Rate limits are high unless a
 * test asks otherwise, so dialogues are not throttled.
 */
export async function setupApp (env: Record<string, string> = {}, options: BuildOptions = {}): Promise<TestContext> {
  const database = await createTestDatabase()
  const prefix = `test:ussd:${randomBytes(4).toString('hex')}:`
  const redisUrl = process.env.REDIS_URL
  const baseEnv = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    REDIS_KEY_PREFIX: prefix,
    OPERATOR_TOKEN,
    SUPPORT_TOKEN,
    PIN_ENCRYPTION_KEY: TEST_PIN_KEY,
    RATE_LIMIT_MAX: '100000',
    RATE_LIMIT_PHONE_MAX: '100000',
    ...database.env,
    ...(redisUrl !== undefined && redisUrl !== '' ? { REDIS_URL: redisUrl } : {}),
    ...env
  }
  const config = loadConfig(baseEnv)
  const app = await buildApp(config, options)
  const replicas: TestApp[] = []
  return {
    app,
    config,
    database,
    prefix,
    replica: async (extra = {}) => {
      const replica = await buildApp(loadConfig({ ...baseEnv, MIGRATE_ON_START: 'never', ...extra }))
      replicas.push(replica)
      return replica
    },
    close: async () => {
      await Promise.allSettled([app.close(), ...replicas.map(async (r) => { await r.close() })])
      await database.drop()
      await dropRedisPrefix(prefix)
    }
  }
}

/** An app that never reaches a database, given to `check` and closed: for which routes exist under which settings. */
export async function withDetachedApp (env: Record<string, string>, check: (app: TestApp) => Promise<void>) {
  const app = await buildApp(loadConfig({
    LOG_LEVEL: 'silent',
    DATA_DIR: 'memory://',
    PIN_ENCRYPTION_KEY: TEST_PIN_KEY,
    USSD_PRIVATE_KEY: (await freshIdentity()).key,
    MIGRATE_ON_START: 'never',
    DATABASE_URL: 'postgres://unused.invalid/none',
    ...env
  }))
  try {
    await check(app)
  } finally {
    await app.close()
  }
}

/** One app for the whole file (`setupApp`): built before its first test, closed after its last. */
export function fileApp (env: Record<string, string> = {}, options: BuildOptions = {}): TestContext {
  let ctx: TestContext | undefined
  beforeAll(async () => { ctx = await setupApp(env, options) })
  afterAll(async () => { await ctx?.close() })
  const started = (): TestContext => {
    if (ctx === undefined) throw new Error('the file\'s app is not started yet')
    return ctx
  }
  return {
    get app () { return started().app },
    get config () { return started().config },
    get database () { return started().database },
    get prefix () { return started().prefix },
    replica: async (env) => await started().replica(env),
    close: async () => { await started().close() }
  }
}

/** Where sessions are kept: in-process and, when the machine has Redis, in the shared store. */
export const SESSION_STORES = [
  { store: 'in-process sessions', redis: undefined },
  ...(process.env.REDIS_URL !== undefined && process.env.REDIS_URL !== ''
    ? [{ store: 'Redis sessions', redis: process.env.REDIS_URL }]
    : [])
]

export interface RelayedContext { app: TestApp, database: TestDatabase, relay: TcpRelay, close: () => Promise<void> }

/**
 * An app on a fresh PostgreSQL database reached through a relay the test can cut or make lose a
 * reply; PGlite runs inside the app's process, so only a database server can be cut off.
 */
export async function setupRelayedApp (
  name: string,
  redis: string | undefined,
  env: Record<string, string> = {},
  logStream?: Writable
): Promise<RelayedContext> {
  const prefix = `test:ussd:${name}:${process.pid}:${redis === undefined ? 'local' : 'redis'}:`
  const database = await createTestDatabase()
  const url = new URL(database.url ?? '')
  const relay = await startTcpRelay({ host: url.hostname, port: Number(url.port || 5432) })
  const app = await buildApp(loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    ...database.env,
    DATABASE_URL: relay.through(url.toString()),
    REDIS_KEY_PREFIX: prefix,
    PIN_ENCRYPTION_KEY: TEST_PIN_KEY,
    ...(redis !== undefined ? { REDIS_URL: redis } : {}),
    ...env
  }), logStream !== undefined ? { logStream } : {})
  return {
    app,
    database,
    relay,
    close: async () => {
      await app.close()
      await relay.close()
      await database.drop()
      await dropRedisPrefix(prefix)
    }
  }
}

/** A connection of its own to the test database, beside the app's pool. */
export async function openDirect (database: TestDatabase) {
  return await openDatabase<DB>({
    url: database.url,
    dataDir: database.dataDir,
    migrations: {},
    migrationTable: 'unused',
    migrate: 'never',
    poolMax: 1
  })
}

export interface UssdReply { status: number, body: string, type: string, con: boolean, screen: string }

let phoneCounter = 0
/** A distinct E.164 number per call, so tests never share sessions, accounts or phone limits. */
export const newPhone = () =>
  `+2547${String(process.pid % 100).padStart(2, '0')}${String(++phoneCounter).padStart(6, '0')}`

export interface DialerOptions {
  phoneNumber?: string
  serviceCode?: string
  json?: boolean
  headers?: Record<string, string>
  url?: string
}

/**
 * A phone dialling through an aggregator of the Africa's Talking kind: it keeps the cumulative
 * `text` and posts form bodies (or JSON), as the real aggregator does.
 */
export class Dialer {
  readonly sessionId = `ATUid_${randomUUID()}`
  readonly phoneNumber: string
  readonly app: TestApp
  readonly options: DialerOptions
  text = ''
  constructor (app: TestApp, options: DialerOptions = {}) {
    this.app = app
    this.options = options
    this.phoneNumber = options.phoneNumber ?? newPhone()
  }

  async post (text: string, extra: Record<string, string> = {}): Promise<UssdReply> {
    const fields = {
      sessionId: this.sessionId,
      serviceCode: this.options.serviceCode ?? '*384*123#',
      phoneNumber: this.phoneNumber,
      networkCode: '63902',
      text,
      ...extra
    }
    const res = await this.app.inject({
      method: 'POST',
      url: this.options.url ?? '/api/ussd',
      headers: { ...this.options.headers },
      ...(this.options.json === true
        ? { payload: fields }
        : {
            payload: new URLSearchParams(fields).toString(),
            headers: { 'content-type': 'application/x-www-form-urlencoded', ...this.options.headers }
          })
    })
    const body = res.body
    if (gsm7Length(body) > MAX_REPLY_CHARS) {
      throw new Error(`reply over ${MAX_REPLY_CHARS} GSM-7 characters: ${JSON.stringify(body)}`)
    }
    return {
      status: res.statusCode,
      body,
      type: String(res.headers['content-type']),
      con: body.startsWith('CON '),
      screen: body.slice(4)
    }
  }

  /** The first request of the session (empty text unless a shortcut is given). */
  async dial (text = ''): Promise<UssdReply> {
    this.text = text
    return await this.post(text)
  }

  /** Types one input: the aggregator appends it to the cumulative text. */
  async send (input: string): Promise<UssdReply> {
    this.text = this.text === '' ? input : `${this.text}*${input}`
    return await this.post(this.text)
  }
}

export interface NewAccountOptions { name?: string, email?: string, pin?: string, phoneNumber?: string }

/** Signs up on a new session (or on `phoneNumber`) and answers the customer id; the session stays logged in. */
export async function createAccount (ctx: { app: TestApp }, options: NewAccountOptions = {}) {
  const phone = new Dialer(ctx.app, { phoneNumber: options.phoneNumber ?? newPhone() })
  await phone.dial()
  await phone.send('2')
  await phone.send('2')
  await phone.send(options.name ?? 'Jane Wanjiru')
  await phone.send(options.email ?? '00')
  await phone.send(options.pin ?? '48213')
  const done = await phone.send(options.pin ?? '48213')
  const customerId = /Customer ID: (C[0-9A-F]{8})/.exec(done.screen)?.[1]
  if (customerId === undefined) throw new Error(`no customer id in ${done.body}`)
  return { phone, customerId, done }
}

/** Support's PIN reset of `customerId`. */
export const pinReset = async (
  ctx: { app: TestApp },
  customerId: string,
  token = SUPPORT_TOKEN,
  agent = 'agent.wanjiku@example.org'
) => await ctx.app.inject({
  method: 'POST',
  url: `/api/ussd/accounts/${customerId}/pin-reset`,
  headers: { authorization: `Bearer ${token}`, 'x-support-agent': agent }
})

/** A new session at the PIN prompt of a login as `customerId`. */
export async function atPinPrompt (ctx: { app: TestApp }, customerId: string) {
  const phone = new Dialer(ctx.app)
  await phone.dial('2*1')
  await phone.send(customerId)
  return phone
}

/** A new sign-up (on `phoneNumber`, or a new number) at the PIN confirmation that creates the account. */
export async function atSignUpConfirmation (ctx: { app: TestApp }, phoneNumber?: string) {
  const phone = new Dialer(ctx.app, { phoneNumber })
  await phone.dial('2*2')
  for (const input of ['Halima Yusuf', '00', '48213']) await phone.send(input)
  return phone
}

/** The operator's view of an account (`GET /api/ussd/accounts/:customerId`). */
export const accountView = async (ctx: { app: TestApp }, customerId: string, token = OPERATOR_TOKEN) =>
  await ctx.app.inject({
    method: 'GET',
    url: `/api/ussd/accounts/${customerId}`,
    headers: { authorization: `Bearer ${token}` }
  })

/** Sets an account's roles (`PUT /api/ussd/accounts/:customerId/roles`). */
export const putRoles = async (ctx: { app: TestApp }, customerId: string, body: unknown, token = OPERATOR_TOKEN) =>
  await ctx.app.inject({
    method: 'PUT',
    url: `/api/ussd/accounts/${customerId}/roles`,
    headers: { authorization: `Bearer ${token}` },
    payload: body as Record<string, unknown>
  })
