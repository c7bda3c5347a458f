import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createMemoryState, createSharedState, type SharedState } from '@impact/shared-state'
import { decodeBase64Car, mintDelegation } from '@impact/ucan'
import type { PluginDefinition } from '../src/app.ts'
import { createHarness, type Harness, type TestUser } from './support/harness.ts'
import { connectSocket, openSocket, openWs } from './support/socket-client.ts'

const serverDatabase = (process.env.DATABASE_URL ?? '') !== ''
const REVOKED = 'Invalid UCAN delegation: it has been revoked'
const cidOf = async (token: string) => (await decodeBase64Car(token)).cid.toString()

/** Shows whether the request's delegation was kept for downstream calls. */
const downstream: PluginDefinition = {
  name: 'downstream',
  description: 'Test plugin: reports the delegation a downstream call would carry',
  attributes: { visibility: 'hidden', stability: 'experimental', category: 'tools', defaultEnabled: true, dependencies: [], requiredEnv: [] },
  setup: () => ({ async routes (app) { app.get('/downstream', async (request) => ({ delegationKept: request.auth?.delegation !== undefined })) } })
}

// Two replicas on one shared state (Redis on the server pass, one in-process state otherwise) and, on the
// server pass, one database; embedded, each has its own, so only the shared state carries the revocation.
describe('DELETE /delegation revokes the delegation on every replica', () => {
  let state: SharedState
  let a: Harness
  let b: Harness
  let baseB: string
  const bare = (delegation: string) => ({ 'x-ucan-delegation': delegation })
  const invocationOnly = (user: TestUser) => ({ authorization: user.headers.authorization as string, 'x-auth-type': 'ucan' })
  const session = async (h: Harness, user: TestUser) => (await h.app.inject({ method: 'POST', url: '/sessions', headers: invocationOnly(user) })).json().sessionId as string

  beforeAll(async () => {
    state = createSharedState({ url: process.env.REDIS_URL, prefix: `oracle-revoke-${randomBytes(4).toString('hex')}:` })
    a = await createHarness({}, { sharedState: state, plugins: [downstream] })
    b = await createHarness({ ORACLE_PRIVATE_KEY: a.oracleKey }, { sharedState: state, plugins: [downstream] }, serverDatabase ? a.shared : undefined)
    baseB = await b.app.listen({ host: '127.0.0.1', port: 0 })
  }, 30_000)
  afterAll(async () => {
    await b?.close()
    await a?.close()
    for (const key of await state.scan('')) await state.del(key)
    await state?.close()
  })

  it('refuses the stored delegation over HTTP, socket.io and /ws, closes sockets opened with it, and refuses to store it again', async () => {
    const user = await a.user()
    const { delegation } = user
    expect((await a.app.inject({ method: 'POST', url: '/delegation', headers: user.headers, payload: { raw: delegation } })).statusCode).toBe(200)
    const sessionId = await session(b, user)
    expect((await b.app.inject({ method: 'GET', url: '/sessions', headers: bare(delegation) })).statusCode).toBe(200)
    const open = await connectSocket(baseB, { sessionId, auth: { ucanDelegation: delegation } })
    const openWithInvocation = await connectSocket(baseB, { sessionId, auth: { invocation: user.invocation, ucanDelegation: delegation } })

    const revoke = await a.app.inject({ method: 'DELETE', url: '/delegation', headers: invocationOnly(user) })
    expect(revoke.json()).toEqual({ ok: true })

    for (const h of [b, a]) {
      const res = await h.app.inject({ method: 'GET', url: '/sessions', headers: bare(delegation) })
      expect(res.statusCode).toBe(401)
      expect(res.json()).toMatchObject({ code: 'UCAN_INVALID_DELEGATION', message: REVOKED })
    }
    expect(await open.next('error')).toMatchObject({ code: 'UCAN_REVOKED', sessionId })
    expect(await open.next('disconnect')).toEqual({ reason: 'io server disconnect' })
    const socket = openSocket(baseB, { sessionId, auth: { ucanDelegation: delegation } })
    expect(await socket.next('connect_error')).toEqual({ message: `Unauthorized: ${REVOKED}`, data: { code: 'UCAN_INVALID_DELEGATION', statusCode: 401 } })
    socket.disconnect()
    const ws = openWs(baseB, `/ws?sessionId=${sessionId}`, bare(delegation))
    expect(await ws.next('connect_error')).toMatchObject({ code: 'UCAN_INVALID_DELEGATION', statusCode: 401 })
    expect((await ws.closed).code).toBe(4401)

    const again = await b.app.inject({ method: 'POST', url: '/delegation', headers: invocationOnly(user), payload: { raw: delegation } })
    expect(again.statusCode).toBe(400)
    expect(again.json()).toMatchObject({ message: 'Invalid delegation: it has been revoked' })
    // The invocation still proves who calls; the revoked delegation beside it is not carried downstream.
    expect((await b.app.inject({ method: 'GET', url: '/downstream', headers: user.headers })).json()).toEqual({ delegationKept: false })
    expect(openWithInvocation.connected).toBe(true)
    openWithInvocation.disconnect()

    const fresh = await mintDelegation({ issuer: user.signer, audience: a.oracleDid, capabilities: [{ can: '*', with: 'ixo:oracle' }], lifetimeSeconds: 3600 })
    expect((await b.app.inject({ method: 'GET', url: '/sessions', headers: bare(fresh) })).statusCode).toBe(200)
    expect((await b.app.inject({ method: 'GET', url: '/downstream', headers: { ...invocationOnly(user), ...bare(fresh) } })).json()).toEqual({ delegationKept: true })
  })

  it('revokes the delegation the DELETE itself is authenticated with when none is stored', async () => {
    const user = await b.user()
    expect((await b.app.inject({ method: 'DELETE', url: '/delegation', headers: bare(user.delegation) })).json()).toEqual({ ok: true })
    expect((await a.app.inject({ method: 'GET', url: '/sessions', headers: bare(user.delegation) })).json().message).toBe(REVOKED)
  })

  it('prunes a revocation once its delegation has expired', async () => {
    const user = await a.user()
    const shortLived = await mintDelegation({ issuer: user.signer, audience: a.oracleDid, capabilities: [{ can: '*', with: 'ixo:oracle' }], lifetimeSeconds: 600 })
    await a.app.inject({ method: 'DELETE', url: '/delegation', headers: bare(shortLived) })
    const rows = async () => await a.app.runtime.db.selectFrom('oracle_revoked_delegations').select('cid').where('cid', '=', await cidOf(shortLived)).execute()
    expect(await rows()).toHaveLength(1)
    await a.app.runtime.revocations.maintain()
    expect(await rows()).toHaveLength(1)
    vi.useFakeTimers({ toFake: ['Date'] })
    try {
      vi.setSystemTime(Date.now() + 700_000)
      await a.app.runtime.revocations.maintain()
    } finally {
      vi.useRealTimers()
    }
    expect(await rows()).toHaveLength(0)
  })
})

describe('a revocation outlives a restart', () => {
  it('is kept in the database and copied into a fresh shared state at start', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'oracle-revocations-'))
    // Embedded, the database must outlive the first app: a PGlite directory instead of memory.
    const env: Record<string, string> = serverDatabase ? {} : { DATA_DIR: dir }
    const first = await createHarness(env)
    try {
      const user = await first.user()
      expect((await first.app.inject({ method: 'DELETE', url: '/delegation', headers: { 'x-ucan-delegation': user.delegation } })).statusCode).toBe(200)
      await first.app.close()
      const restarted = await createHarness({ ...env, ORACLE_PRIVATE_KEY: first.oracleKey }, { sharedState: createMemoryState() }, first.shared)
      try {
        const res = await restarted.app.inject({ method: 'GET', url: '/sessions', headers: { 'x-ucan-delegation': user.delegation } })
        expect(res.json()).toMatchObject({ statusCode: 401, message: REVOKED })
        expect((await restarted.app.inject({ method: 'GET', url: '/sessions', headers: user.headers })).statusCode).toBe(200)
      } finally {
        await restarted.close()
      }
    } finally {
      await first.close()
      await rm(dir, { recursive: true, force: true })
    }
  }, 30_000)
})
