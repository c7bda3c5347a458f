import { randomBytes } from 'node:crypto'
import type { Database } from '@impact/persistence'
import { createTestDatabase, type TestDatabase } from '@impact/persistence/testing'
import { testClock } from '@impact/service-kit/testing'
import { afterAll, beforeAll } from 'vitest'
import { buildApp, type BuildOptions } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { openAppDatabase } from '../src/db/open.ts'
import type { DB } from '../src/db/types.ts'

export const ADMIN_KEY = `admin_${randomBytes(24).toString('base64url')}`
/** Every file's app counts 127.0.0.1 in one Redis; the rate-limit tests set small budgets of their own. */
export const UNTHROTTLED = {
  RATE_LIMIT_MAX: '1000000',
  RATE_LIMIT_AUTH_FAILURES_MAX: '1000000',
  RATE_LIMIT_PRINCIPAL_MAX: '1000000'
}
export const PROTOCOL = 'did:ixo:protocol/clean-cooking'

export type TestApp = Awaited<ReturnType<typeof startApp>>

/**
 * One app per test file on an isolated database (PGlite in memory, or a fresh database on the
 * DATABASE_URL server), with REDIS_URL passed through in the servers pass.
 */
export async function startApp (
  env: Record<string, string> = {},
  options: BuildOptions & { database?: TestDatabase } = {}
) {
  const database = options.database ?? await createTestDatabase()
  const clock = testClock()
  const redis = process.env.REDIS_URL
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DOMAIN_API_ADMIN_KEY: ADMIN_KEY,
    VERIFICATION_QUORUM: '3',
    VERIFICATION_THRESHOLD: '0.6',
    VERIFICATION_PERIOD_SECONDS: '3600',
    VERIFICATION_SWEEP_INTERVAL_SECONDS: '0',
    ...UNTHROTTLED,
    ...(redis !== undefined && redis !== '' ? { REDIS_URL: redis } : {}),
    ...database.env,
    ...env
  })
  const app = await buildApp(config, { clock: clock.date, ...options })
  const auth = (key: string) => ({ authorization: `Bearer ${key}` })

  // What this file granted so far, so a grant is one request (the rate-limit tests count them).
  const granted = new Map<string, Set<string>>()

  /** Adds `roles` to the account's grants (as an admin would). */
  async function grant (account: string, roles: string[]) {
    const all = new Set([...(granted.get(account) ?? []), ...roles])
    const res = await app.inject({
      method: 'PUT', url: `/v1/accounts/${account}/roles`, headers: auth(ADMIN_KEY), payload: { roles: [...all] }
    })
    if (res.statusCode !== 200) throw new Error(`granting roles failed: ${res.body}`)
    granted.set(account, all)
  }

  /** A key of `account` (a fresh one by default) whose account is granted the key's roles first, unless told not to. */
  async function issueKey (roles: string[], account = randomAccount(), options: { grant?: boolean } = {}) {
    if (options.grant !== false) await grant(account, roles)
    const res = await app.inject({
      method: 'POST',
      url: '/v1/api-keys',
      headers: auth(ADMIN_KEY),
      payload: { name: `${roles.join('+')} key`, roles, account }
    })
    if (res.statusCode !== 201) throw new Error(`issuing a key failed: ${res.body}`)
    return res.json() as { id: string, key: string, roles: string[], account: string }
  }

  async function createDomain (key: string, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/domains',
      headers: { ...auth(key), ...headers },
      payload: { type: 'Project', class: PROTOCOL, metadata: { name: 'Clean Cooking Project' }, ...body }
    })
    if (res.statusCode !== 201) throw new Error(`creating a domain failed: ${res.body}`)
    return res.json() as { did: string, status: string, [key: string]: unknown }
  }

  /** The domain's recorded transitions as `key` may read them, oldest first. */
  async function history (did: string, key: string) {
    const res = await app.inject({ method: 'GET', url: `/v1/domains/${did}/history`, headers: auth(key) })
    if (res.statusCode !== 200) throw new Error(`reading the history failed: ${res.body}`)
    return (res.json() as { items: Array<Record<string, any>> }).items
  }

  return {
    app,
    clock,
    config,
    database,
    auth,
    grant,
    issueKey,
    createDomain,
    history,
    async close () {
      await app.close()
      if (options.database === undefined) await database.drop()
    }
  }
}

export const randomAccount = () => `did:ixo:ixo1${randomBytes(12).toString('hex')}`

/** The app's migrated database for the whole file (services tested below the HTTP layer). */
export function fileDatabase () {
  let testDb: TestDatabase | undefined
  let database: Database<DB> | undefined
  beforeAll(async () => {
    testDb = await createTestDatabase()
    database = await openAppDatabase(loadConfig({ NODE_ENV: 'test', ...testDb.env }))
  }, 60_000)
  afterAll(async () => {
    await database?.close()
    await testDb?.drop()
  })
  return {
    get database (): Database<DB> {
      if (database === undefined) throw new Error('the file\'s database is not open yet')
      return database
    }
  }
}
