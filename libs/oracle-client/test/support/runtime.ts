import { generateSigner, mintDelegation, mintInvocation, type OracleSigner } from '@impact/ucan'
import type { AppOptions } from '@impact/oracle-runtime'
import { OracleClient, type OracleClientOptions } from '../../src/index.ts'
import { createHarness, type Harness } from '../../../../apps/oracle-runtime/test/support/harness.ts'

export { createHarness, testPlugin, type Harness } from '../../../../apps/oracle-runtime/test/support/harness.ts'

export interface RealRuntime {
  app: Harness['app']
  baseUrl: string
  oracleDid: string
  close: () => Promise<void>
}

/**
 * A real oracle runtime listening on 127.0.0.1 (port 0), booted by the runtime's own test harness:
 * a fresh identity, embedded PGlite and in-process state by default, a fresh PostgreSQL database
 * and a private Redis key prefix with DATABASE_URL/REDIS_URL.
 */
export async function startRuntime (env: Record<string, string> = {}, options: AppOptions = {}): Promise<RealRuntime> {
  const { app, oracleDid, close } = await createHarness(env, options)
  const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 })
  return { app, baseUrl, oracleDid, close }
}

/** A user with a real Ed25519 key whose callbacks count how often they were asked to sign. */
export interface TestUser {
  signer: OracleSigner
  did: string
  minted: { delegation: number, invocation: number }
  createDelegation: (request: { oracleDid: string }) => Promise<string>
  createInvocation: (request: { oracleDid: string }) => Promise<string>
}

/** `abilities`: granted on the user's own DID too (e.g. `domain/*`, for tools acting as the user). */
export async function testUser (
  lifetimes: { delegation?: number, invocation?: number } = {},
  abilities: string[] = []
): Promise<TestUser> {
  const signer = await generateSigner()
  const minted = { delegation: 0, invocation: 0 }
  return {
    signer,
    did: signer.did(),
    minted,
    async createDelegation ({ oracleDid }) {
      minted.delegation++
      return await mintDelegation({
        issuer: signer,
        audience: oracleDid,
        capabilities: [{ can: '*', with: 'ixo:oracle' }, ...abilities.map((can) => ({ can, with: signer.did() }))],
        lifetimeSeconds: lifetimes.delegation ?? 3600
      })
    },
    async createInvocation ({ oracleDid }) {
      minted.invocation++
      return await mintInvocation({ issuer: signer, audience: oracleDid, lifetimeSeconds: lifetimes.invocation ?? 300 })
    }
  }
}

/** An OracleClient of `user` for `runtime`, signing with the user's callbacks unless `extra` says otherwise. */
export function clientFor (runtime: RealRuntime, user: TestUser, extra: Partial<OracleClientOptions> = {}) {
  return new OracleClient({
    baseUrl: runtime.baseUrl,
    oracleDid: runtime.oracleDid,
    userDid: user.did,
    createDelegation: user.createDelegation,
    createInvocation: user.createInvocation,
    ...extra
  })
}

/** A client of `user` (a new one by default) with a fresh session of its own. */
export async function withSession (runtime: RealRuntime, extra: Partial<OracleClientOptions> = {}, user?: TestUser) {
  const owner = user ?? await testUser()
  const client = clientFor(runtime, owner, extra)
  return { user: owner, client, sessionId: (await client.createSession()).sessionId }
}

/** A fetch that records what was sent (method, path, headers) and passes everything to the real one. */
export function recordingFetch () {
  const calls: Array<{ method: string, path: string, headers: Headers }> = []
  const fetcher: typeof fetch = async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url)
    calls.push({ method: init?.method ?? 'GET', path: url.pathname + url.search, headers: new Headers(init?.headers) })
    return await fetch(input, init)
  }
  return { fetch: fetcher, calls }
}
