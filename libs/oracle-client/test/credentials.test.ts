import type { Kysely } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mintDelegation, mintInvocation } from '@impact/ucan'
import { CredentialCache, Credentials } from '../src/index.ts'
import { clientFor, recordingFetch, startRuntime, testPlugin, testUser, type RealRuntime } from './support/runtime.ts'

const nowS = () => Math.floor(Date.now() / 1000)

/** A deployment plugin that answers only users whose delegation the oracle holds (as downstream tools need). */
const requiresStoredDelegation = testPlugin({
  name: 'requires-delegation',
  description: 'Refuses messages from users without a stored, unexpired delegation',
  setup: ({ db }) => ({
    middleware: [
      {
        routes: ['POST /messages/:sessionId'],
        async preHandler (request, reply) {
          const stored = await (db as unknown as Kysely<{ oracle_delegations: { did: string; expiration: number } }>)
            .selectFrom('oracle_delegations')
            .select('expiration')
            .where('did', '=', request.auth?.did as string)
            .executeTakeFirst()
          if (stored !== undefined && Number(stored.expiration) > Date.now() / 1000) return
          return await reply
            .code(403)
            .send({
              statusCode: 403,
              error: 'Forbidden',
              code: 'ORACLE_DELEGATION_MISSING',
              message: 'No delegation stored for this user: re-authorize'
            })
        }
      }
    ]
  })
})

describe('credentials against a real oracle runtime', () => {
  let runtime: RealRuntime
  let strict: RealRuntime

  beforeAll(async () => {
    [runtime, strict] = await Promise.all([startRuntime(), startRuntime({}, { plugins: [requiresStoredDelegation] })])
  })
  afterAll(async () => { await Promise.all([runtime?.close(), strict?.close()]) })

  it('mints once and reuses the Bearer invocation (with X-Auth-Type) and the delegation on every request', async () => {
    const user = await testUser()
    const recorder = recordingFetch()
    const client = clientFor(runtime, user, { fetch: recorder.fetch })
    const { sessionId } = await client.createSession()
    await Promise.all([
      client.listSessions(),
      client.getHistory(sessionId),
      client.getUserPreferences(),
      client.getDelegationStatus()
    ])
    expect(user.minted).toEqual({ delegation: 1, invocation: 1 })
    const sent = recorder.calls.map((c) => c.headers)
    expect(new Set(sent.map((h) => h.get('authorization'))).size).toBe(1)
    expect(new Set(sent.map((h) => h.get('x-ucan-delegation'))).size).toBe(1)
    expect(
      sent.every(
        (h) => h.get('authorization')?.startsWith('Bearer OqJlcm9vdHOB') === true && h.get('x-auth-type') === 'ucan'
      )
    ).toBe(true)
  })

  it('stays on delegation-only auth without an invocation callback', async () => {
    const user = await testUser()
    const recorder = recordingFetch()
    const client = clientFor(runtime, user, { fetch: recorder.fetch, createInvocation: undefined })
    const { sessionId } = await client.createSession()
    expect((await client.sendMessage(sessionId, { message: 'hello' })).message.content).toContain('hello')
    expect(user.minted).toEqual({ delegation: 1, invocation: 0 })
    for (const call of recorder.calls) {
      expect(call.headers.get('authorization')).toBeNull()
      expect(call.headers.get('x-auth-type')).toBeNull()
      expect(call.headers.get('x-ucan-delegation')).toMatch(/^OqJlcm9vdHOB/)
    }
  })

  it('re-mints each token shortly before the expiry read from the token itself', async () => {
    const user = await testUser({ invocation: 300, delegation: 3600 })
    let clock = Date.now()
    const client = clientFor(runtime, user, { now: () => clock })
    await client.listSessions()
    clock += (300 - 31) * 1000
    await client.listSessions()
    expect(user.minted).toEqual({ delegation: 1, invocation: 1 })
    clock += 2000
    await client.listSessions()
    expect(user.minted).toEqual({ delegation: 1, invocation: 2 })
    clock = Date.now() + (3600 - 299) * 1000
    await client.listSessions()
    expect(user.minted).toEqual({ delegation: 2, invocation: 3 })
  })

  it('keys the cache by user and oracle DID and shares one mint between concurrent requests', async () => {
    const counts = new Map<string, number>()
    const mint = async ({ userDid, oracleDid }: { userDid: string, oracleDid: string }) => {
      counts.set(`${userDid} ${oracleDid}`, (counts.get(`${userDid} ${oracleDid}`) ?? 0) + 1)
      return { token: `${userDid}:${oracleDid}`, expiration: nowS() + 3600 }
    }
    const cache = new CredentialCache()
    const pairs = [
      ['did:key:a', 'did:key:x'],
      ['did:key:a', 'did:key:y'],
      ['did:key:b', 'did:key:x'],
      ['did:key:a', 'did:key:x']
    ] as const
    const tokens = await Promise.all(
      pairs.flatMap(([userDid, oracleDid]) => {
        const credentials = new Credentials({ userDid, oracleDid, createDelegation: mint, cache })
        return [credentials.get('delegation'), credentials.get('delegation')]
      })
    )
    expect(tokens.filter((t, i) => i % 2 === 0)).toEqual([
      'did:key:a:did:key:x',
      'did:key:a:did:key:y',
      'did:key:b:did:key:x',
      'did:key:a:did:key:x'
    ])
    expect([...counts.values()]).toEqual([1, 1, 1])
  })

  it('re-mints a refused invocation and retries once, without putting tokens in the error', async () => {
    const user = await testUser()
    let stale = 1
    const client = clientFor(runtime, user, {
      createInvocation: async ({ oracleDid }) =>
        stale-- > 0
          ? await mintInvocation({ issuer: user.signer, audience: oracleDid, expiration: nowS() - 60 })
          : await user.createInvocation({ oracleDid })
    })
    expect((await client.listSessions()).total).toBe(0)
    expect(user.minted.invocation).toBe(1)

    const broken = clientFor(runtime, user, {
      createInvocation: async ({ oracleDid }) =>
        await mintInvocation({ issuer: user.signer, audience: oracleDid, expiration: nowS() - 60 })
    })
    const error = await broken.listSessions().then(
      () => {
        throw new Error('expected a refusal')
      },
      (e: unknown) => e as Error & { body: unknown }
    )
    expect(error).toMatchObject({ status: 401, code: 'UCAN_INVALID_INVOCATION', message: 'Invalid UCAN invocation' })
    expect(JSON.stringify({ message: error.message, body: error.body, stack: error.stack })).not.toMatch(/OqJlcm9v/)
  })

  it('replaces an expired delegation the oracle refused: fresh mint, POST /delegation, one retry', async () => {
    const user = await testUser()
    let expired = 1
    const recorder = recordingFetch()
    const refreshed: number[] = []
    const client = clientFor(runtime, user, {
      fetch: recorder.fetch,
      createInvocation: undefined,
      onDelegationRefreshed: () => refreshed.push(Date.now()),
      createDelegation: async ({ oracleDid }) =>
        expired-- > 0
          ? await mintDelegation({
            issuer: user.signer,
            audience: oracleDid,
            capabilities: [{ can: '*', with: 'ixo:oracle' }],
            expiration: nowS() - 60
          })
          : await user.createDelegation({ oracleDid })
    })
    const session = await client.createSession()
    expect(session.sessionId).toMatch(/^s_/)
    expect(recorder.calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'POST /sessions',
      'POST /delegation',
      'POST /sessions'
    ])
    expect(refreshed).toHaveLength(1)
    expect((await client.getDelegationStatus()).authorized).toBe(true)
  })

  it('stores a fresh delegation when a deployment reports it missing, then answers', async () => {
    const user = await testUser()
    const recorder = recordingFetch()
    const client = clientFor(strict, user, { fetch: recorder.fetch })
    const { sessionId } = await client.createSession()
    const stream = await client.streamMessage(sessionId, { message: 'hello after re-authorizing' })
    expect((await stream.done).content).toContain('hello after re-authorizing')
    expect(recorder.calls.map((c) => `${c.method} ${c.path.split('?')[0]}`)).toEqual([
      'POST /sessions',
      `POST /messages/${sessionId}`,
      'POST /delegation',
      `POST /messages/${sessionId}`
    ])
    expect(user.minted.delegation).toBe(2)
    await client.sendMessage(sessionId, { message: 'again' })
    expect(recorder.calls.filter((c) => c.path === '/delegation')).toHaveLength(1)
  })
})
