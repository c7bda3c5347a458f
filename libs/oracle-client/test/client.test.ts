import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OracleClient, OracleRequestError, type OracleClientOptions } from '../src/index.ts'
import {
  clientFor as runtimeClient, recordingFetch, startRuntime, testUser, type RealRuntime, type TestUser
} from './support/runtime.ts'

describe('OracleClient against a real oracle runtime', () => {
  let runtime: RealRuntime
  const clientFor = (user: TestUser, extra: Partial<OracleClientOptions> = {}) => runtimeClient(runtime, user, extra)

  beforeAll(async () => { runtime = await startRuntime() })
  afterAll(async () => { await runtime?.close() })

  it('discovers the oracle DID and lists the models without credentials', async () => {
    expect((await OracleClient.discover(`${runtime.baseUrl}/`)).oracleDid).toBe(runtime.oracleDid)
    const user = await testUser()
    const models = await clientFor(user).listModels()
    expect(models.default).toBe('offline')
    expect(user.minted).toEqual({ delegation: 0, invocation: 0 })
  })

  it('creates, pages through and deletes sessions; another user sees none of them', async () => {
    const user = await testUser()
    const client = clientFor(user)
    const created = []
    for (let i = 0; i < 5; i++) created.push(await client.createSession())
    expect(created[0]).toMatchObject({ title: 'New chat', oracleDid: runtime.oracleDid })
    const pages = []
    for await (const page of client.sessionPages({ pageSize: 2 })) pages.push(page)
    expect(pages.map((p) => p.sessions.length)).toEqual([2, 2, 1])
    expect(pages.flatMap((p) => p.sessions.map((s) => s.sessionId)).sort()).toEqual(
      created.map((s) => s.sessionId).sort()
    )
    expect(await client.deleteSession(created[0]!.sessionId)).toEqual({ message: 'Session deleted successfully' })
    expect((await client.listSessions()).total).toBe(4)
    expect((await client.listSessions({ limit: 500 })).sessions).toHaveLength(4)
    const error = await client.deleteSession(created[0]!.sessionId).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OracleRequestError)
    expect(error).toMatchObject({ status: 404, code: 'ORACLE_SESSION_NOT_FOUND', message: 'Session not found' })
    expect((await clientFor(await testUser()).listSessions()).total).toBe(0)
  })

  it('sends a message as JSON and reads the history page by page, older pages by cursor', async () => {
    const client = clientFor(await testUser())
    const { sessionId } = await client.createSession()
    const reply = await client.sendMessage(sessionId, { message: 'first question' })
    expect(reply.message.content).toContain('You said: "first question"')
    await client.sendMessage(sessionId, { message: 'second question' })
    await client.sendMessage(sessionId, { message: 'third question' })
    const newest = await client.getHistory(sessionId, { limit: 1 })
    expect(newest.messages.map((m) => [m.type, m.content.slice(0, 15)])).toEqual([
      ['human', 'third question'],
      ['ai', 'Hi! You said: "']
    ])
    expect(newest.hasOlder).toBe(true)
    const older = await client.getHistory(sessionId, { limit: 2, before: newest.prevCursor! })
    expect(older.messages.filter((m) => m.type === 'human').map((m) => m.content)).toEqual([
      'first question',
      'second question'
    ])
    expect(older.hasOlder).toBe(false)
    const first = await client.getHistory(sessionId, { limit: 1, before: older.prevCursor! })
    expect(first.messages).toEqual([])
    const all = await client.getNewerHistory(sessionId, older.prevCursor, { limit: 1 })
    expect(all.messages.filter((m) => m.type === 'human').map((m) => m.content)).toEqual([
      'second question',
      'third question'
    ])
    expect(all.nextCursor).toBe(newest.nextCursor)
  })

  it('falls back to the legacy transcript on a server without the paged history route', async () => {
    const user = await testUser()
    const { sessionId } = await clientFor(user).createSession()
    await clientFor(user).sendMessage(sessionId, { message: 'legacy please' })
    // An older runtime: GET /sessions/:id/messages is a plain 404, everything else is the real server.
    const legacyOnly: typeof fetch = async (input, init) =>
      new URL(String(input)).pathname.endsWith('/messages') && new URL(String(input)).pathname.startsWith('/sessions/')
        ? new Response(
          JSON.stringify({
            statusCode: 404,
            error: 'Not Found',
            message: 'Route GET:/sessions/x/messages not found'
          }),
          { status: 404, headers: { 'content-type': 'application/json' } }
        )
        : await fetch(input, init)
    const client = clientFor(user, { fetch: legacyOnly })
    const page = await client.getHistory(sessionId)
    expect(page.messages.map((m) => m.type)).toEqual(['human', 'ai'])
    expect(page).toMatchObject({ prevCursor: null, nextCursor: null, hasOlder: false, hasNewer: false })
    expect((await client.getHistory(sessionId, { before: 'abc' })).messages).toEqual([])
    await expect(clientFor(user).getHistory('s_unknown')).rejects.toMatchObject({
      status: 404,
      code: 'ORACLE_SESSION_NOT_FOUND'
    })
  })

  it('stores, reports and revokes the delegation', async () => {
    const client = clientFor(await testUser())
    expect(await client.getDelegationStatus()).toEqual({ authorized: false })
    const stored = await client.storeDelegation()
    expect(stored.ok).toBe(true)
    expect(stored.expiration).toBeGreaterThan(Date.now() / 1000 + 3000)
    expect(await client.getDelegationStatus()).toMatchObject({
      authorized: true,
      expiration: stored.expiration,
      capabilities: [{ can: '*', with: 'ixo:oracle' }]
    })
    expect(await client.revokeDelegation()).toEqual({ ok: true })
    expect((await client.ensureDelegation()).authorized).toBe(true)
  })

  it('reads the preferences the agent saved, null before', async () => {
    const client = clientFor(await testUser())
    expect(await client.getUserPreferences()).toBeNull()
    const { sessionId } = await client.createSession()
    await client.sendMessage(sessionId, { message: 'please call me Sam' })
    expect(await client.getUserPreferences()).toMatchObject({ userName: 'Sam' })
  })

  it('sends the time zone and Matrix headers, and refuses bad input with the server\'s error', async () => {
    const recorder = recordingFetch()
    const client = clientFor(await testUser(), {
      fetch: recorder.fetch,
      timezone: 'Africa/Nairobi',
      matrix: { accessToken: 'mx-token', homeServer: 'https://matrix.example.org' }
    })
    const { sessionId } = await client.createSession()
    const headers = recorder.calls[0]!.headers
    expect(headers.get('x-timezone')).toBe('Africa/Nairobi')
    expect(headers.get('x-matrix-access-token')).toBe('mx-token')
    expect(headers.get('x-matrix-homeserver')).toBe('https://matrix.example.org')
    await expect(client.sendMessage(sessionId, { message: 'x', model: 'no-such-model' })).rejects.toMatchObject({
      status: 400,
      code: 'ORACLE_UNKNOWN_MODEL'
    })
    await expect(
      client.sendMessage(sessionId, {
        message: 'x',
        browserTools: [{ name: 'bad name', description: '', schema: {}, handler: () => null }]
      })
    ).rejects.toThrow(/must be 1–64 letters/)
  })

  it('reports an unreachable oracle as a network error', async () => {
    const client = new OracleClient({
      baseUrl: 'http://127.0.0.1:9',
      oracleDid: runtime.oracleDid,
      userDid: 'did:key:z6Mkx',
      createDelegation: async () => 'x'
    })
    await expect(client.listModels()).rejects.toMatchObject({ name: 'OracleNetworkError', status: 0 })
    await expect(OracleClient.discover('http://127.0.0.1:9')).rejects.toMatchObject({
      name: 'OracleNetworkError',
      message: 'Could not reach the oracle at http://127.0.0.1:9/'
    })
  })
})
