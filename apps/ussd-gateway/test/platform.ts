import { randomBytes } from 'node:crypto'
import { createServer } from 'node:net'
import { buildApp as buildDomainApi } from '@impact/domain-api'
import { loadConfig as loadDomainApiConfig } from '@impact/domain-api/config'
import { createTestDatabase } from '@impact/persistence/testing'
import { freshIdentity } from '@impact/service-kit/testing'
import { decodeBase64Car } from '@impact/ucan'
import type { AppOptions } from '@impact/oracle-runtime'
import { createHarness } from '../../oracle-runtime/test/support/harness.ts'
import { dropRedisPrefix } from './helper.ts'

const ADMIN_KEY = `admin_${randomBytes(24).toString('base64url')}`

/** An invocation domain-api received: who signed it, for whom, to whom. */
export interface SeenInvocation { issuer: string, audience: string, capabilities: Array<{ can: string, with: string }> }

/**
 * domain-api listening on loopback, as `npm start` runs it: a fresh identity, its own database (PGlite in
 * memory, or a fresh one on DATABASE_URL) and Redis prefix, a quorum of one vote. It records the UCAN
 * invocations it is sent, and acts as the programme's admin (roles, a project, votes).
 */
export async function startRegistry () {
  const database = await createTestDatabase()
  const identity = await freshIdentity()
  const prefix = `ussd-test-registry-${randomBytes(4).toString('hex')}:`
  const redis = process.env.REDIS_URL
  const app = await buildDomainApi(loadDomainApiConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DOMAIN_API_ADMIN_KEY: ADMIN_KEY,
    DOMAIN_API_PRIVATE_KEY: identity.key,
    VERIFICATION_QUORUM: '1',
    VERIFICATION_SWEEP_INTERVAL_SECONDS: '0',
    RATE_LIMIT_MAX: '1000000',
    RATE_LIMIT_AUTH_FAILURES_MAX: '1000000',
    RATE_LIMIT_PRINCIPAL_MAX: '1000000',
    ...(redis !== undefined && redis !== '' ? { REDIS_URL: redis } : {}),
    ...database.env
  }), { statePrefix: prefix })
  const invocations: SeenInvocation[] = []
  app.addHook('onRequest', async (request) => {
    const bearer = request.headers.authorization?.replace(/^Bearer /, '')
    if (request.headers['x-auth-type'] !== 'ucan' || bearer === undefined) return
    const invocation = await decodeBase64Car(bearer)
    invocations.push({
      issuer: invocation.issuer.did(),
      audience: invocation.audience.did(),
      capabilities: invocation.capabilities.map((c) => ({ can: c.can, with: c.with }))
    })
  })
  const url = await app.listen({ host: '127.0.0.1', port: 0 })

  async function api <T = any> (method: string, path: string, body?: unknown, key = ADMIN_KEY): Promise<T> {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {})
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {})
    })
    const text = await res.text()
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text}`)
    return JSON.parse(text) as T
  }

  /** An API key of a fresh account holding `roles` (granted by the admin first). */
  async function keyWith (roles: string[]): Promise<string> {
    const account = `did:ixo:ussd-test-${randomBytes(6).toString('hex')}`
    await api('PUT', `/v1/accounts/${account}/roles`, { roles })
    return (await api<{ key: string }>('POST', '/v1/api-keys', { name: roles.join('+'), roles, account })).key
  }

  /** Takes a domain through governance: a compliance officer proposes, one voter (the quorum) says yes. */
  async function verify (did: string) {
    // The voter holds its role before the proposal opens (the electorate is who holds it then).
    const voter = await keyWith(['voter'])
    const proposal = await api<{ id: string }>('POST', `/v1/domains/${did}/verification-proposals`, {
      evidence: 'https://example.org/site-visit/1', note: 'site visit done'
    }, await keyWith(['compliance']))
    await api('POST', `/v1/verification-proposals/${proposal.id}/votes`, { vote: 'yes' }, voter)
  }

  return {
    url,
    did: identity.did,
    invocations,
    api,
    /** Grants domain-api roles to an account DID, as an operator does with the admin key. */
    async grant (account: string, roles: string[]) {
      await api('PUT', `/v1/accounts/${account}/roles`, { roles })
    },
    /** A verified clean-cooking protocol and a project of it, as the development seed makes them. */
    async programme () {
      const office = await keyWith(['registrar'])
      const protocol = await api<{ did: string }>('POST', '/v1/domains', {
        type: 'protocol/project', class: 'did:ixo:protocol/project', metadata: { name: 'Clean cooking protocol' }
      }, office)
      // The registry takes a protocol of its own as a class only once governance has verified it.
      await verify(protocol.did)
      const project = await api<{ did: string }>('POST', '/v1/domains', {
        type: 'Project', class: protocol.did, metadata: { name: 'Clean Cooking Project' }
      }, office)
      return { protocol: protocol.did, project: project.did }
    },
    /** The domain registered under a serial, as the admin reads it. */
    async bySerial (serial: string) {
      return (await api<{ items: any[] }>('GET', `/v1/domains?externalId=${encodeURIComponent(serial)}`)).items
    },
    verify,
    async close () {
      await app.close()
      await database.drop()
      await dropRedisPrefix(prefix)
    }
  }
}

export type Registry = Awaited<ReturnType<typeof startRegistry>>

/**
 * oracle-runtime listening on loopback with its offline agent (no model), booted by its own test harness;
 * `turns` lists each finished turn with its session and the DID it ran for.
 */
export async function startOracle (env: Record<string, string> = {}, options: AppOptions = {}) {
  const harness = await createHarness(env, options)
  const turns: Array<{ sessionId: string, did: string }> = []
  harness.runtime.bus.subscribe({}, (event) => {
    if (event.name === 'done') turns.push({ sessionId: event.sessionId, did: event.did })
  })
  const url = await harness.app.listen({ host: '127.0.0.1', port: 0 })
  return { url, did: harness.oracleDid, turns, close: harness.close }
}

/** A loopback address nothing listens on (a port just freed), for a service that is down. */
export async function deadUrl (): Promise<string> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => { resolve() }))
  return `http://127.0.0.1:${port}`
}
