import { randomBytes } from 'node:crypto'
import { createTestDatabase } from '@impact/persistence/testing'
import { freshIdentity } from '@impact/service-kit/testing'
import { buildApp } from './app.ts'
import { apiKeyClient } from './client/api-key-client.ts'
import { loadConfig } from './config.ts'

/** A request the registry received, as its caller sent it. */
export interface SeenRequest {
  method: string
  url: string
  authorization: string | undefined
  /** The `x-auth-type` header: `ucan` when the bearer is an invocation. */
  authType: string | undefined
}

export interface LoopbackDomainApiOptions {
  /** Settings over the defaults below (e.g. `VERIFICATION_QUORUM`). */
  env?: Record<string, string>
  /** Namespace of its shared-state keys, for a caller that drops them from Redis afterwards. */
  statePrefix?: string
}

export type LoopbackDomainApi = Awaited<ReturnType<typeof startDomainApi>>

/**
 * domain-api listening on loopback for other packages' tests, as `npm start` runs it: a fresh identity, an
 * isolated database (PGlite in memory, or a fresh database on DATABASE_URL), REDIS_URL passed through in the
 * servers pass, rate limits out of reach and a bootstrap admin key. `seen` logs every request it receives.
 */
export async function startDomainApi (options: LoopbackDomainApiOptions = {}) {
  const database = await createTestDatabase()
  const identity = await freshIdentity()
  const adminKey = `admin_${randomBytes(24).toString('base64url')}`
  const redis = process.env.REDIS_URL
  const app = await buildApp(loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DOMAIN_API_ADMIN_KEY: adminKey,
    DOMAIN_API_PRIVATE_KEY: identity.key,
    VERIFICATION_SWEEP_INTERVAL_SECONDS: '0',
    RATE_LIMIT_MAX: '1000000',
    RATE_LIMIT_AUTH_FAILURES_MAX: '1000000',
    RATE_LIMIT_PRINCIPAL_MAX: '1000000',
    ...(redis !== undefined && redis !== '' ? { REDIS_URL: redis } : {}),
    ...database.env,
    ...options.env
  }), { statePrefix: options.statePrefix }).catch(async (err: unknown) => {
    await database.drop()
    throw err
  })
  const seen: SeenRequest[] = []
  app.addHook('onRequest', async (request) => {
    const authType = request.headers['x-auth-type']
    seen.push({
      method: request.method,
      url: request.url,
      authorization: request.headers.authorization,
      authType: Array.isArray(authType) ? authType[0] : authType
    })
  })
  const url = await app.listen({ host: '127.0.0.1', port: 0 })

  const call = apiKeyClient(url)
  /** A JSON call with the admin key (or `key`); anything but a 2xx answer throws. */
  const admin = async <T = any>(method: string, path: string, body?: unknown, key = adminKey): Promise<T> =>
    await call<T>(method, path, key, body)

  /** Grants roles to an account DID, as an operator does with the admin key. */
  async function grant (account: string, roles: string[]): Promise<void> {
    await admin('PUT', `/v1/accounts/${account}/roles`, { roles })
  }

  /** A fresh account that holds `roles`, with an API key of it. */
  async function accountWith (roles: string[]): Promise<{ account: string, key: string }> {
    const account = `did:ixo:test-${randomBytes(6).toString('hex')}`
    await grant(account, roles)
    const { key } = await admin<{ key: string }>('POST', '/v1/api-keys', { name: roles.join('+'), roles, account })
    return { account, key }
  }
  const keyWith = async (roles: string[]): Promise<string> => (await accountWith(roles)).key

  return {
    url,
    did: identity.did,
    adminKey,
    seen,
    admin,
    grant,
    accountWith,
    keyWith,
    async close () {
      await app.close()
      await database.drop()
    }
  }
}
