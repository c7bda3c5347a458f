import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createMemoryState, type SharedState } from '@impact/shared-state'
import { decodeBase64Car, mintDelegation } from '@impact/ucan'
import {
  createHarness,
  testPlugin,
  testSharedState,
  type Harness,
  type TestSharedState,
  type TestUser
} from '../support/harness.ts'
import { connectSocket, openSocket, openWs } from '../support/socket-client.ts'

const serverDatabase = (process.env.DATABASE_URL ?? '') !== ''
const REVOKED = 'Invalid UCAN delegation: it has been revoked'
const ORACLE = [{ can: '*', with: 'ixo:oracle' }]
const cidOf = async (token: string) => (await decodeBase64Car(token)).cid.toString()
const bare = (delegation: string) => ({ 'x-ucan-delegation': delegation })
const invocationOnly = (user: TestUser) => ({ authorization: user.headers.authorization ?? '', 'x-auth-type': 'ucan' })
const get = async (h: Harness, url: string, headers: Record<string, string>) =>
  await h.app.inject({ method: 'GET', url, headers })
const revoke = async (h: Harness, headers: Record<string, string>) =>
  await h.app.inject({ method: 'DELETE', url: '/delegation', headers })
const store = async (h: Harness, headers: Record<string, string>, raw: string) =>
  await h.app.inject({ method: 'POST', url: '/delegation', headers, payload: { raw } })
const mint = async (h: Harness, user: TestUser, lifetimeSeconds: number) =>
  await mintDelegation({ issuer: user.signer, audience: h.oracleDid, capabilities: ORACLE, lifetimeSeconds })

/** Shows whether the request's delegation was kept for downstream calls. */
const downstream = testPlugin({
  name: 'downstream',
  description: 'Test plugin: reports the delegation a downstream call would carry',
  setup: () => ({
    async routes (app) {
      app.get('/downstream', async (request) => ({ delegationKept: request.auth?.delegation !== undefined }))
    }
  })
})

// Two replicas on one shared state (Redis on the server pass, one in-process state otherwise) and, on the
// server pass, one database; embedded, each has its own, so only the shared state carries the revocation.
describe('DELETE /delegation revokes the delegation on every replica', () => {
  let shared: TestSharedState
  let a: Harness
  let b: Harness
  let baseB: string

  beforeAll(async () => {
    shared = testSharedState('oracle-revoke')
    const { state } = shared
    a = await createHarness({}, { sharedState: state, plugins: [downstream] })
    const replica = { ORACLE_PRIVATE_KEY: a.oracleKey }
    const database = serverDatabase ? a.shared : undefined
    b = await createHarness(replica, { sharedState: state, plugins: [downstream] }, database)
    baseB = await b.app.listen({ host: '127.0.0.1', port: 0 })
  }, 30_000)
  afterAll(async () => {
    await b?.close()
    await a?.close()
    await shared?.drop()
  })

  it('refuses it over HTTP, socket.io and /ws, closes sockets opened with it, refuses to store it again', async () => {
    const user = await a.user()
    const { delegation } = user
    expect((await store(a, user.headers, delegation)).statusCode).toBe(200)
    const sessionId = await b.newSession(invocationOnly(user))
    expect((await get(b, '/sessions', bare(delegation))).statusCode).toBe(200)
    const open = await connectSocket(baseB, { sessionId, auth: { ucanDelegation: delegation } })
    const both = { invocation: user.invocation, ucanDelegation: delegation }
    const openWithInvocation = await connectSocket(baseB, { sessionId, auth: both })

    expect((await revoke(a, invocationOnly(user))).json()).toEqual({ ok: true })

    for (const h of [b, a]) {
      const res = await get(h, '/sessions', bare(delegation))
      expect(res.statusCode).toBe(401)
      expect(res.json()).toMatchObject({ code: 'UCAN_INVALID_DELEGATION', message: REVOKED })
    }
    expect(await open.next('error')).toMatchObject({ code: 'UCAN_REVOKED', sessionId })
    expect(await open.next('disconnect')).toEqual({ reason: 'io server disconnect' })
    const socket = openSocket(baseB, { sessionId, auth: { ucanDelegation: delegation } })
    expect(await socket.next('connect_error'))
      .toEqual({ message: `Unauthorized: ${REVOKED}`, data: { code: 'UCAN_INVALID_DELEGATION', statusCode: 401 } })
    socket.disconnect()
    const ws = openWs(baseB, `/ws?sessionId=${sessionId}`, bare(delegation))
    expect(await ws.next('connect_error')).toMatchObject({ code: 'UCAN_INVALID_DELEGATION', statusCode: 401 })
    expect((await ws.closed).code).toBe(4401)

    const again = await store(b, invocationOnly(user), delegation)
    expect(again.statusCode).toBe(400)
    expect(again.json()).toMatchObject({ message: 'Invalid delegation: it has been revoked' })
    // The invocation still proves who calls; the revoked delegation beside it is not carried downstream.
    expect((await get(b, '/downstream', user.headers)).json()).toEqual({ delegationKept: false })
    expect(openWithInvocation.connected).toBe(true)
    openWithInvocation.disconnect()

    const fresh = await mint(a, user, 3600)
    expect((await get(b, '/sessions', bare(fresh))).statusCode).toBe(200)
    const kept = await get(b, '/downstream', { ...invocationOnly(user), ...bare(fresh) })
    expect(kept.json()).toEqual({ delegationKept: true })
  })

  it('revokes the delegation the DELETE itself is authenticated with when none is stored', async () => {
    const user = await b.user()
    expect((await revoke(b, bare(user.delegation))).json()).toEqual({ ok: true })
    expect((await get(a, '/sessions', bare(user.delegation))).json().message).toBe(REVOKED)
  })

  it('prunes a revocation once its delegation has expired', async () => {
    const user = await a.user()
    const shortLived = await mint(a, user, 600)
    await revoke(a, bare(shortLived))
    const cid = await cidOf(shortLived)
    const rows = async () =>
      await a.runtime.db.selectFrom('oracle_revoked_delegations').select('cid').where('cid', '=', cid).execute()
    expect(await rows()).toHaveLength(1)
    await a.runtime.revocations.maintain()
    expect(await rows()).toHaveLength(1)
    vi.useFakeTimers({ toFake: ['Date'] })
    try {
      vi.setSystemTime(Date.now() + 700_000)
      await a.runtime.revocations.maintain()
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
      expect((await revoke(first, bare(user.delegation))).statusCode).toBe(200)
      await first.app.close()
      const restartedEnv = { ...env, ORACLE_PRIVATE_KEY: first.oracleKey }
      const restarted = await createHarness(restartedEnv, { sharedState: createMemoryState() }, first.shared)
      try {
        const res = await get(restarted, '/sessions', bare(user.delegation))
        expect(res.json()).toMatchObject({ statusCode: 401, message: REVOKED })
        expect((await get(restarted, '/sessions', user.headers)).statusCode).toBe(200)
      } finally {
        await restarted.close()
      }
    } finally {
      await first.close()
      await rm(dir, { recursive: true, force: true })
    }
  }, 30_000)
})

describe('revocations while the shared state is unreachable', () => {
  let failing = false
  let shared: TestSharedState
  let h: Harness
  const down = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' })

  beforeAll(async () => {
    shared = testSharedState('oracle-revoke')
    const { state } = shared
    // The real store, failing on demand the way an unreachable Redis does.
    const flaky: SharedState = {
      ...state,
      get: async (key) => { if (failing) throw down(); return await state.get(key) },
      set: async (key, value, options) => { if (failing) throw down(); return await state.set(key, value, options) }
    }
    h = await createHarness({}, { sharedState: flaky })
  }, 30_000)
  afterAll(async () => {
    await h?.close()
    await shared?.drop()
  })

  it('reads the database meanwhile, and copies a revocation it could not share once the store is back', async () => {
    const user = await h.user()
    failing = true
    const revoked = await revoke(h, bare(user.delegation))
    expect(revoked.statusCode).toBe(503)
    expect(revoked.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE' })
    const refused = async () => (await get(h, '/sessions', bare(user.delegation))).json()
    expect(await refused()).toMatchObject({ statusCode: 401, message: REVOKED })
    failing = false
    await h.runtime.revocations.maintain()
    expect(await refused()).toMatchObject({ statusCode: 401, message: REVOKED })
  })
})
