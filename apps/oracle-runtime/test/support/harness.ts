import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll } from 'vitest'
import { createTestDatabase, type TestDatabase } from '@impact/persistence/testing'
import { createRedisState, createSharedState, type SharedState } from '@impact/shared-state'
import { freshIdentity, ucanCaller, type UcanCaller } from '@impact/service-kit/testing'
import { buildRuntime, type AppOptions, type PluginDefinition, type Runtime } from '../../src/app.ts'
import { loadConfig, type Config } from '../../src/config.ts'
import { startLoopbackLlm, type LoopbackLlm } from './loopback-llm.ts'

/** Budgets no other test reaches; the rate-limit tests set small ones. */
export const UNTHROTTLED = {
  RATE_LIMIT_MAX: '1000000',
  RATE_LIMIT_AUTH_FAILURES_MAX: '1000000',
  RATE_LIMIT_PRINCIPAL_MAX: '1000000'
}

/** A hidden, experimental tools plugin for a test: on by default, no dependencies unless `attributes` says so. */
export function testPlugin (
  { name, description, setup }: Omit<PluginDefinition, 'attributes'>,
  attributes: Partial<PluginDefinition['attributes']> = {}
): PluginDefinition {
  const defaults: PluginDefinition['attributes'] = {
    visibility: 'hidden',
    stability: 'experimental',
    category: 'tools',
    defaultEnabled: true,
    dependencies: [],
    requiredEnv: []
  }
  return { name, description, attributes: { ...defaults, ...attributes }, setup }
}

/** A caller with a fresh key; `headers` are invocation auth (what the SDK sends) plus its delegation. */
export type TestUser = UcanCaller

/** Where an app keeps its state: a second replica built on the same one shares it. */
export interface Shared { database: Pick<TestDatabase, 'env'>, prefix: string }

export interface Harness {
  app: Awaited<ReturnType<typeof buildRuntime>>['app']
  /** The parts of the app a test drives or inspects directly (event bus, turns, realtime hub…). */
  runtime: Runtime
  config: Config
  oracleDid: string
  oracleKey: string
  /** Pass as `shared` to build a second replica on the same database and shared state. */
  shared: Shared
  user: () => Promise<TestUser>
  /** POST /sessions as the caller of `headers`: the new session's id. */
  newSession: (headers: Record<string, string>) => Promise<string>
  /** POST /messages/:sessionId with a plain message, answered as JSON. */
  send: (headers: Record<string, string>, sessionId: string, message: string) => Promise<LightMyRequestResponse>
  /** The stored transcript of a session (GET /messages/:sessionId). */
  transcript: (headers: Record<string, string>, sessionId: string) => Promise<any[]>
  close: () => Promise<void>
}

/**
 * One app per test file on an isolated database (PGlite in memory, or a fresh database on the
 * server pass) and, with REDIS_URL, a key prefix of its own that is wiped afterwards.
 */
export async function createHarness (
  env: Record<string, string> = {},
  options: AppOptions = {},
  shared?: Shared
): Promise<Harness> {
  // A replica joining `shared` leaves the database and the prefix to the app that made them.
  const owned = shared === undefined ? await createTestDatabase() : undefined
  const database = shared?.database ?? owned as TestDatabase
  const prefix = shared?.prefix ?? `oracle-test-${randomBytes(4).toString('hex')}:`
  const oracleKey = env.ORACLE_PRIVATE_KEY ?? (await freshIdentity()).key
  const redisUrl = process.env.REDIS_URL
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    ...database.env,
    ...(redisUrl !== undefined && redisUrl !== '' ? { REDIS_URL: redisUrl } : {}),
    ORACLE_PRIVATE_KEY: oracleKey,
    ...UNTHROTTLED,
    ...env
  })
  const { app, runtime } = await buildRuntime(config, { statePrefix: prefix, ...options })
  const oracleDid = runtime.identity.did
  return {
    app,
    runtime,
    config,
    oracleDid,
    oracleKey,
    shared: { database, prefix },
    user: async () => await ucanCaller(oracleDid),
    async newSession (headers) {
      return (await app.inject({ method: 'POST', url: '/sessions', headers })).json().sessionId as string
    },
    async send (headers, sessionId, message) {
      return await app.inject({ method: 'POST', url: `/messages/${sessionId}`, headers, payload: { message } })
    },
    async transcript (headers, sessionId) {
      return (await app.inject({ method: 'GET', url: `/messages/${sessionId}`, headers })).json().messages
    },
    async close () {
      // Every test is over: client connections are cut rather than waited for (a spare one a client opened and
      // never sent a request on holds the server open for seconds, until the client drops it).
      const closing = app.close()
      app.server.closeAllConnections()
      await closing
      if (owned === undefined) return
      await owned.drop()
      if (redisUrl !== undefined && redisUrl !== '') {
        const redis = createRedisState({ url: redisUrl, prefix })
        const keys = await redis.scan('')
        await Promise.all(keys.map(async (k) => await redis.del(k)))
        await redis.close()
      }
    }
  }
}

export interface TestSharedState {
  state: SharedState
  /** Deletes every key under the state's prefix and closes it. */
  drop: () => Promise<void>
}

/**
 * State for replicas to share (Redis on the server pass, in-process otherwise) under a fresh prefix
 * named after the test; pass `state` as the `sharedState` of each replica.
 */
export function testSharedState (name: string): TestSharedState {
  const state = createSharedState({ url: process.env.REDIS_URL, prefix: `${name}-${randomBytes(4).toString('hex')}:` })
  return {
    state,
    drop: async () => {
      for (const key of await state.scan('')) await state.del(key)
      await state.close()
    }
  }
}

/** True on the server pass: PostgreSQL and Redis, which two live processes need to share. */
export const onServers = (process.env.DATABASE_URL ?? '') !== '' && (process.env.REDIS_URL ?? '') !== ''

/**
 * One oracle's processes over the file's tests, restarted or side by side on the same state: a PGlite directory,
 * or on the server pass a PostgreSQL database and a Redis prefix. Everything is removed after the last test.
 */
export function oracleProcesses (name: string) {
  let database: TestDatabase | undefined
  let dataDir: string | undefined
  let shared: Shared | undefined
  const processes: Harness[] = []
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), `${name}-`))
    database = onServers ? await createTestDatabase() : undefined
    shared = {
      database: database ?? { env: { DATA_DIR: dataDir } },
      prefix: `${name}-${randomBytes(4).toString('hex')}:`
    }
  })
  afterAll(async () => {
    for (const h of processes) await h.close()
    await database?.drop()
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true })
    if (!onServers || shared === undefined) return
    const state = createSharedState({ url: process.env.REDIS_URL, prefix: shared.prefix })
    for (const key of await state.scan('')) await state.del(key)
    await state.close()
  })
  /** A process of the oracle on that state, listening on loopback. */
  return async (env: Record<string, string>, options: AppOptions = {}) => {
    if (shared === undefined) throw new Error('the file\'s oracle state is not made yet')
    const h = await createHarness(env, options, shared)
    processes.push(h)
    return { h, base: await h.app.listen({ host: '127.0.0.1', port: 0 }) }
  }
}

export interface FileHarness {
  readonly h: Harness
  /** The app's address on loopback (with `listen`). */
  readonly base: string
  /** The loopback model the app answers with (with `llm`; the app's LLM_BASE_URL). */
  readonly llm: LoopbackLlm
}

export interface FileHarnessOptions extends AppOptions {
  /** Starts a loopback model for the app. */
  llm?: boolean
  /** Listens on a free loopback port, for clients over real HTTP (SSE, socket.io, WebSocket). */
  listen?: boolean
}

/** One app for the whole file: built before its first test, closed after its last. */
export function fileHarness (env: Record<string, string> = {}, options: FileHarnessOptions = {}): FileHarness {
  const { llm: withLlm = false, listen = false, ...appOptions } = options
  let h: Harness | undefined
  let base: string | undefined
  let llm: LoopbackLlm | undefined
  beforeAll(async () => {
    llm = withLlm ? await startLoopbackLlm() : undefined
    h = await createHarness({ ...(llm !== undefined ? { LLM_BASE_URL: llm.url } : {}), ...env }, appOptions)
    base = listen ? await h.app.listen({ host: '127.0.0.1', port: 0 }) : undefined
  })
  afterAll(async () => {
    await h?.close()
    await llm?.close()
  })
  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the file's ${what} is not started (yet)`)
    return value
  }
  return {
    get h () { return started(h, 'app') },
    get base () { return started(base, 'listening app') },
    get llm () { return started(llm, 'loopback model') }
  }
}

/** Parses an SSE body into its frames the way the oracle SDK does. */
export function parseSse (text: string): Array<{ event: string, data: any }> {
  const frames: Array<{ event: string, data: any }> = []
  let event: string | undefined
  let data: string | undefined
  const flush = () => {
    if (event !== undefined && data !== undefined) frames.push({ event, data: JSON.parse(data) })
    event = undefined
    data = undefined
  }
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    if (line === '' || line.startsWith(':')) { flush(); continue }
    if (line.startsWith('event:')) event = line.slice(6).trim()
    else if (line.startsWith('data:')) data = line.slice(5).trim()
  }
  flush()
  return frames
}
