import { randomBytes } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { startChain, type LoopbackChain } from '@impact/chain-rest-gateway/testing'
import { startDomainApi, type LoopbackDomainApi } from '@impact/domain-api/testing'
import { createPlatformClient, type PlatformClient } from '@impact/platform-client'
import { createTestDatabase, type TestDatabase } from '@impact/persistence/testing'
import { createSharedState } from '@impact/shared-state'
import { mintDelegation, mintInvocation, parseSigner } from '@impact/ucan'
import { loadConfig } from '../../src/config.ts'
import { BUILTIN_PLUGINS, resolvePlugins } from '../../src/runtime-plugins/index.ts'
import { createHarness, type Harness, type Shared, type TestUser } from '../support/harness.ts'
import { startLoopbackLlm, type LoopbackLlm } from '../support/loopback-llm.ts'
import { connectSocket } from '../support/socket-client.ts'
import { openStream } from '../support/sse-client.ts'
import { stoveStatusPlugin } from '../support/stove-status-plugin.ts'

/** A class outside this registry, of a method it allows (`DOMAIN_EXTERNAL_CLASS_METHODS`). */
const PROTOCOL = 'did:ixo:protocol/clean-cooking'
/** An entity of the chain gateway's development node. */
const CHAIN_ENTITY = 'did:ixo:entity:0000000000000000000000000000e001'

let registry: LoopbackDomainApi
let chain: LoopbackChain
let llm: LoopbackLlm
/** An oracle answering through a loopback model, and one running the offline agent; both on loopback. */
let withModel: { h: Harness, base: string }
let offline: { h: Harness, base: string }
let platform: PlatformClient
/** What the registry was sent besides `GET /` (its DID). */
const requests = () => registry.seen.filter((r) => r.url !== '/').length

async function oracle (env: Record<string, string>) {
  const h = await createHarness({ DOMAIN_API_URL: registry.url, CHAIN_REST_URL: chain.url, ...env }, {
    plugins: [stoveStatusPlugin]
  })
  return { h, base: await h.app.listen({ host: '127.0.0.1', port: 0 }) }
}

beforeAll(async () => {
  [registry, chain, llm] = await Promise.all([startDomainApi(), startChain(), startLoopbackLlm()])
  ;[withModel, offline] = await Promise.all([oracle({ LLM_BASE_URL: llm.url }), oracle({})])
  platform = createPlatformClient({ domainApiUrl: registry.url })
})
afterAll(async () => {
  await Promise.all([withModel?.h.close(), offline?.h.close()])
  await Promise.all([registry?.close(), chain?.close(), llm?.close()])
})

/** The user's delegation of `can` on their DID to the oracle (next to the oracle's own `*`), as base64. */
async function delegationOf (user: TestUser, oracleDid: string, can = 'domain/*') {
  return await mintDelegation({
    issuer: user.signer,
    audience: oracleDid,
    capabilities: [{ can, with: user.did }, { can: '*', with: 'ixo:oracle' }]
  })
}

/** A user of `app` who stored a delegation of `can` with POST /delegation. */
async function authorisedUser (app: { h: Harness }, can = 'domain/*') {
  const user = await app.h.user()
  const raw = await delegationOf(user, app.h.oracleDid, can)
  const res = await app.h.app.inject({ method: 'POST', url: '/delegation', headers: user.headers, payload: { raw } })
  expect(res.statusCode).toBe(200)
  return { user, raw }
}

/** What domain-api holds, read by the user themselves (self-issued invocations). */
const asSelf = (user: TestUser) => platform.actingAs({ signer: user.signer, proof: null })

const frame = (frames: Array<{ event: string, data: any }>, event: string, status?: string) =>
  frames.find((f) => f.event === event && (status === undefined || f.data.status === status))?.data

const decide = async (app: { h: Harness }, user: TestUser, toolCallId: string, payload: Record<string, unknown>) =>
  await app.h.app.inject({ method: 'POST', url: `/approvals/${toolCallId}`, headers: user.headers, payload })

describe('platform plugin through a model', () => {
  it('registers a stove as the user after approval, then reports it with get_domain', async () => {
    const { user } = await authorisedUser(withModel)
    const sessionId = await withModel.h.newSession(user.headers)
    const args = { name: 'Stove ST-12, Kisumu', serial: 'ST-12', protocol: PROTOCOL }
    llm.enqueue({ toolCalls: [{ id: 'call_reg_ok', name: 'register_domain', args }] }, { content: ['Registered.'] })
    const stream = await openStream(withModel.base, sessionId, user.headers, { message: 'Register my stove ST-12' })
    const asked = frame(await stream.until('approval_request'), 'approval_request')
    expect(asked).toMatchObject({ toolCallId: 'call_reg_ok', toolName: 'register_domain', status: 'pending', args })
    expect(asked.summary).toBe('Register the Device "Stove ST-12, Kisumu" (serial ST-12) in the platform registry ' +
      `in your name, under the protocol ${PROTOCOL}. This oracle does it for you with the authorisation you gave it.`)
    expect((await asSelf(user).searchDomains({ controller: user.did })).items).toEqual([])

    expect((await decide(withModel, user, 'call_reg_ok', { sessionId, approved: true })).statusCode).toBe(200)
    const { frames } = await stream.rest()
    const done = frame(frames, 'tool_call', 'done')
    expect(done).toMatchObject({ eventId: 'call_reg_ok', toolName: 'register_domain' })
    const registered = JSON.parse(done.output)
    expect(registered).toMatchObject({
      registered: true,
      type: 'asset/device',
      name: 'Stove ST-12, Kisumu',
      status: 'draft',
      verified: false,
      usable: false,
      yours: true,
      controllers: [user.did],
      protocol: PROTOCOL,
      metadata: { name: 'Stove ST-12, Kisumu', serial: 'ST-12' },
      createdBy: { account: user.did, service: withModel.h.oracleDid }
    })
    expect(frames.at(-1)?.event).toBe('done')

    const history = await asSelf(user).getDomainHistory(registered.did)
    expect(history.items.map((e) => [e.event, e.actor])).toEqual([
      ['created', { kind: 'ucan', keyId: null, account: user.did, service: withModel.h.oracleDid }]
    ])

    llm.enqueue({ toolCalls: [{ id: 'call_get_1', name: 'get_domain', args: { did: registered.did } }] },
      { content: ['It is a draft.'] })
    const res = await withModel.h.send(user.headers, sessionId, 'How is my stove?')
    expect(res.json().message.content).toBe('It is a draft.')
    const reported = JSON.parse(llm.requests.at(-1)?.body.messages.at(-1).content)
    expect(reported).toMatchObject({
      did: registered.did, status: 'draft', verified: false, usable: false, yours: true, controllers: [user.did]
    })
  })

  it('creates nothing when the user declines', async () => {
    const { user } = await authorisedUser(withModel)
    const sessionId = await withModel.h.newSession(user.headers)
    const before = requests()
    const args = { name: 'Stove X', protocol: PROTOCOL }
    llm.enqueue({ toolCalls: [{ id: 'call_reg_no', name: 'register_domain', args }] }, { content: ['Not registered.'] })
    const stream = await openStream(withModel.base, sessionId, user.headers, { message: 'Register stove X' })
    await stream.until('approval_request')
    await decide(withModel, user, 'call_reg_no', { sessionId, approved: false, reason: 'wrong stove' })
    const { frames } = await stream.rest()
    expect(frame(frames, 'tool_call', 'error')?.output)
      .toBe('The user declined: wrong stove. register_domain was not run.')
    expect(requests()).toBe(before)
    expect((await asSelf(user).searchDomains({ controller: user.did })).items).toEqual([])
  })

  it('asks for authorisation when no delegation is stored, and prompts the client to store one', async () => {
    const user = await withModel.h.user()
    const sessionId = await withModel.h.newSession(user.headers)
    const before = requests()
    llm.enqueue({ toolCalls: [{ id: 'call_noauth', name: 'search_domains', args: { mine: true } }] },
      { content: ['Please authorise me.'] })
    const stream = await openStream(withModel.base, sessionId, user.headers, { message: 'What are my stoves?' })
    const { frames } = await stream.rest()
    expect(frame(frames, 'error')).toMatchObject({
      kind: 'delegation_required',
      status: 403,
      detail: { ability: 'domain/read', reason: 'no_delegation', oracleDid: withModel.h.oracleDid },
      sessionId
    })
    const failed = frame(frames, 'tool_call', 'error')
    expect(JSON.parse(failed.output)).toMatchObject({
      error: 'authorisation_required', ability: 'domain/read', reason: 'no_delegation'
    })
    expect(JSON.parse(failed.output).message)
      .toContain(`authorise this oracle (${withModel.h.oracleDid}) for domain/read`)
    expect(frame(frames, 'message')?.content).toBe('Please authorise me.')
    expect(frames.at(-1)?.event).toBe('done')
    expect(requests()).toBe(before)
  })

  it('prompts for authorisation, without asking to approve, when the delegation does not grant registering',
    async () => {
      const { user } = await authorisedUser(withModel, 'domain/read')
      const sessionId = await withModel.h.newSession(user.headers)
      const socket = await connectSocket(withModel.base, {
        sessionId, auth: { invocation: user.invocation, ucanDelegation: user.delegation }
      })
      onTestFinished(() => { socket.disconnect() })
      const before = requests()
      const args = { name: 'S', protocol: PROTOCOL }
      llm.enqueue({ toolCalls: [{ id: 'call_short', name: 'register_domain', args }] },
        { content: ['Please authorise me to register it.'] })
      const stream = await openStream(withModel.base, sessionId, user.headers, { message: 'Register S' })
      const { frames } = await stream.rest()
      expect(frames.map((f) => f.event)).toEqual(['error', 'tool_call', 'message', 'done'])
      const prompt = {
        kind: 'delegation_required',
        status: 403,
        retryable: true,
        detail: { ability: 'domain/create', reason: 'not_granted', oracleDid: withModel.h.oracleDid },
        sessionId,
        requestId: stream.response.headers.get('x-request-id')
      }
      expect(frame(frames, 'error')).toMatchObject(prompt)
      expect(JSON.parse(frame(frames, 'tool_call', 'error').output)).toMatchObject({
        error: 'authorisation_required', ability: 'domain/create', reason: 'not_granted'
      })
      expect(frames.at(-1)?.data).toEqual({ messageId: expect.any(String) })
      expect(await socket.next('delegation_required'))
        .toEqual({ eventName: 'delegation_required', payload: expect.objectContaining(prompt) })
      const history = await withModel.h.app.inject({
        method: 'GET', url: `/sessions/${sessionId}/messages`, headers: user.headers
      })
      expect(history.json().pendingApprovals).toEqual([])
      expect(requests()).toBe(before)
    })

  it('reports domain-api\'s refusal of a delegation the user revoked there', async () => {
    const { user, raw } = await authorisedUser(withModel)
    await asSelf(user).revoke(raw)
    llm.enqueue({ toolCalls: [{ id: 'call_revoked', name: 'get_domain', args: { did: PROTOCOL } }] },
      { content: ['ok'] })
    const res = await withModel.h.send(user.headers, await withModel.h.newSession(user.headers), 'status?')
    const [call] = (await withModel.h.transcript(user.headers, res.json().sessionId)).at(-1).toolCalls
    expect(call.status).toBe('error')
    expect(JSON.parse(call.output)).toMatchObject({
      error: 'authorisation_required', ability: 'domain/read', reason: 'DOMAIN_UCAN_REVOKED'
    })
  })

  it('turns domain-api errors into results the model reads', async () => {
    const { user } = await authorisedUser(withModel)
    const missing = 'did:ixo:entity:ffffffffffffffffffffffffffffffff'
    llm.enqueue({ toolCalls: [{ id: 'call_missing', name: 'get_domain', args: { did: missing } }] },
      { content: ['Not found.'] })
    const res = await withModel.h.send(user.headers, await withModel.h.newSession(user.headers), 'find it')
    expect(res.statusCode).toBe(200)
    const sent = JSON.parse(llm.requests.at(-1)?.body.messages.at(-1).content)
    expect(sent).toMatchObject({ error: 'DOMAIN_NOT_FOUND', status: 404, service: 'domain-api' })
  })

  it('forwards a revocation at the oracle to domain-api, which then refuses the delegation', async () => {
    const { user, raw } = await authorisedUser(withModel)
    const oracleAsUser = platform.actingAs({ signer: parseSigner(withModel.h.oracleKey), proof: raw })
    expect((await oracleAsUser.searchDomains({ limit: 1 })).items).toBeInstanceOf(Array)
    const res = await withModel.h.app.inject({ method: 'DELETE', url: '/delegation', headers: user.headers })
    expect(res.json()).toEqual({ ok: true })
    await expect(oracleAsUser.searchDomains({ limit: 1 })).rejects.toMatchObject({ code: 'DOMAIN_UCAN_REVOKED' })
  })
})

describe('platform plugin through the offline agent', () => {
  it('registers a stove named in plain words, after approval, and reads it back by DID', async () => {
    const { user } = await authorisedUser(offline)
    const sessionId = await offline.h.newSession(user.headers)
    const stream = await openStream(offline.base, sessionId, user.headers, {
      message: `Please register a stove serial ST-99 under ${PROTOCOL}`
    })
    const asked = frame(await stream.until('approval_request'), 'approval_request')
    expect(asked).toMatchObject({
      toolName: 'register_domain',
      args: { name: 'Stove ST-99', type: 'Device', serial: 'ST-99', protocol: PROTOCOL }
    })
    await decide(offline, user, asked.toolCallId, { sessionId, approved: true })
    const { frames } = await stream.rest()
    const registered = JSON.parse(frame(frames, 'tool_call', 'done').output)
    expect(registered).toMatchObject({
      registered: true, controllers: [user.did], createdBy: { account: user.did, service: offline.h.oracleDid }
    })
    const answer = frames.filter((f) => f.event === 'message').map((f) => f.data.content).join('')
    expect(answer).toContain('register_domain: {"registered":true')

    for (const message of [`get_domain ${registered.did}`, `How is ${registered.did}?`]) {
      await offline.h.send(user.headers, sessionId, message)
      const [call] = (await offline.h.transcript(user.headers, sessionId)).at(-1).toolCalls
      expect(call).toMatchObject({ name: 'get_domain', status: 'done' })
      expect(JSON.parse(call.output)).toMatchObject({ did: registered.did, status: 'draft', yours: true })
    }
  })

  it('prompts a user who never authorised the oracle instead of asking them to approve a registration', async () => {
    const user = await offline.h.user()
    const sessionId = await offline.h.newSession(user.headers)
    const before = requests()
    const stream = await openStream(offline.base, sessionId, user.headers, {
      message: `Please register a stove serial ST-98 under ${PROTOCOL}`
    })
    const { frames } = await stream.rest()
    expect(frames.some((f) => f.event === 'approval_request')).toBe(false)
    expect(frame(frames, 'error')).toMatchObject({
      kind: 'delegation_required', detail: { ability: 'domain/create', reason: 'no_delegation' }
    })
    expect(frame(frames, 'tool_call', 'error')).toMatchObject({ toolName: 'register_domain' })
    expect(frames.at(-1)).toMatchObject({ event: 'done', data: { messageId: expect.any(String) } })
    expect(frames.at(-1)?.data).not.toHaveProperty('failed')
    expect(requests()).toBe(before)
  })

  it('reads a verification with its open proposal and tally', async () => {
    const { user } = await authorisedUser(offline)
    const domain = await asSelf(user).registerDomain({ type: 'Device', class: PROTOCOL, metadata: { name: 'V' } })
    await registry.grant(user.did, ['compliance'])
    // A proposal needs an electorate that can reach the quorum (3) when it opens.
    for (let i = 0; i < 3; i++) await registry.grant(`did:ixo:voter${randomBytes(6).toString('hex')}`, ['voter'])
    const propose = await fetch(`${registry.url}/v1/domains/${domain.did}/verification-proposals`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await mintInvocation({
          issuer: user.signer, audience: registry.did, capability: { can: 'verification/propose', with: user.did }
        })}`,
        'x-auth-type': 'ucan',
        'content-type': 'application/json'
      },
      body: JSON.stringify({ evidence: 'https://example.org/stove/evidence' })
    })
    expect(propose.status).toBe(201)
    const res = await offline.h.send(user.headers, await offline.h.newSession(user.headers),
      `get_verification ${domain.did}`)
    const [call] = (await offline.h.transcript(user.headers, res.json().sessionId)).at(-1).toolCalls
    expect(JSON.parse(call.output)).toMatchObject({
      did: domain.did,
      status: 'verification_submitted',
      verified: false,
      proposal: { status: 'open', tally: { yes: 0, no: 0, abstain: 0, total: 0 }, votes: [] }
    })
  })

  it('queries the chain by route', async () => {
    const { user } = await authorisedUser(offline)
    const res = await offline.h.send(user.headers, await offline.h.newSession(user.headers),
      `query_chain /ixo/entity/${CHAIN_ENTITY}`)
    const [call] = (await offline.h.transcript(user.headers, res.json().sessionId)).at(-1).toolCalls
    expect(call).toMatchObject({ name: 'query_chain', status: 'done' })
    expect(JSON.parse(call.output)).toMatchObject({ entity: { id: CHAIN_ENTITY } })
  })
})

describe('platform plugin across a restart', { timeout: 60_000 }, () => {
  const servers = (process.env.DATABASE_URL ?? '') !== '' && (process.env.REDIS_URL ?? '') !== ''
  let database: TestDatabase | undefined
  let dataDir: string
  let shared: Shared
  const processes: Harness[] = []

  /** One process of the oracle on the same database, key and shared state prefix as the others. */
  const boot = async (key?: string) => {
    const h = await createHarness({
      DOMAIN_API_URL: registry.url,
      LLM_BASE_URL: llm.url,
      TURN_OWNER_TTL_MS: '1000',
      ...(key !== undefined ? { ORACLE_PRIVATE_KEY: key } : {})
    }, {}, shared)
    processes.push(h)
    return { h, base: await h.app.listen({ host: '127.0.0.1', port: 0 }) }
  }

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'oracle-platform-'))
    database = servers ? await createTestDatabase() : undefined
    shared = {
      database: database ?? { env: { DATA_DIR: dataDir } },
      prefix: `oracle-platform-${randomBytes(4).toString('hex')}:`
    }
  })
  afterAll(async () => {
    for (const h of processes) await h.close()
    await database?.drop()
    await rm(dataDir, { recursive: true, force: true })
    if (!servers) return
    const state = createSharedState({ url: process.env.REDIS_URL, prefix: shared.prefix })
    for (const key of await state.scan('')) await state.del(key)
    await state.close()
  })

  it('prompts the session\'s sockets when a registration resumed on approval is no longer authorised', async () => {
    const first = await boot()
    const { user } = await authorisedUser(first)
    const sessionId = await first.h.newSession(user.headers)
    const args = { name: 'Stove ST-40', protocol: PROTOCOL }
    llm.enqueue({ toolCalls: [{ id: 'call_reg_resumed', name: 'register_domain', args }] })
    const stream = await openStream(first.base, sessionId, user.headers, { message: 'Register ST-40' })
    await stream.until('approval_request')
    await first.h.app.close()
    expect((await stream.rest()).frames.at(-1)).toMatchObject({ event: 'done', data: { awaitingApproval: true } })

    // Restarted, the oracle holds a narrower delegation by the time the user approves.
    const second = await boot(first.h.oracleKey)
    const narrower = await delegationOf(user, second.h.oracleDid, 'domain/read')
    expect((await second.h.app.inject({
      method: 'POST', url: '/delegation', headers: user.headers, payload: { raw: narrower }
    })).statusCode).toBe(200)
    const socket = await connectSocket(second.base, {
      sessionId, auth: { invocation: user.invocation, ucanDelegation: user.delegation }
    })
    onTestFinished(() => { socket.disconnect() })
    const before = requests()
    llm.enqueue({ content: ['Please authorise me to register stoves for you.'] })
    expect((await decide(second, user, 'call_reg_resumed', { sessionId, approved: true })).statusCode).toBe(200)

    expect(await socket.next('delegation_required')).toEqual({
      eventName: 'delegation_required',
      payload: expect.objectContaining({
        kind: 'delegation_required',
        status: 403,
        retryable: true,
        detail: { ability: 'domain/create', reason: 'not_granted', oracleDid: second.h.oracleDid },
        sessionId,
        requestId: stream.response.headers.get('x-request-id')
      })
    })
    const failed = await socket.next('tool_call', (e) => e.payload.status === 'error')
    expect(JSON.parse(failed.payload.output)).toMatchObject({ error: 'authorisation_required', reason: 'not_granted' })
    await socket.next('message_cache_invalidation')
    expect(requests()).toBe(before)
    expect((await second.h.transcript(user.headers, sessionId)).at(-1)).toMatchObject({
      content: 'Please authorise me to register stoves for you.',
      toolCalls: [{ id: 'call_reg_resumed', status: 'error' }]
    })
  })
})

describe('the plugin guide\'s example', () => {
  it('is this working tool, in under 40 lines', async () => {
    const example = await readFile(new URL('../support/stove-status-plugin.ts', import.meta.url), 'utf8')
    const readme = await readFile(new URL('../../docs/plugins.md', import.meta.url), 'utf8')
    expect(readme).toContain(example)
    expect(example.trim().split('\n').length).toBeLessThan(40)
  })

  it('reads a domain as the user, and tells the model when the user has not authorised the oracle', async () => {
    const { user } = await authorisedUser(offline)
    const domain = await asSelf(user).registerDomain({ type: 'Device', class: PROTOCOL, metadata: { name: 'R' } })
    const sessionId = await offline.h.newSession(user.headers)
    const res = await offline.h.send(user.headers, sessionId, `stove_status ${domain.did}`)
    const [call] = (await offline.h.transcript(user.headers, res.json().sessionId)).at(-1).toolCalls
    expect(JSON.parse(call.output)).toEqual({
      did: domain.did, status: 'draft', verified: false, usable: false, yours: true
    })
    const stranger = await offline.h.user()
    const other = await offline.h.send(stranger.headers, await offline.h.newSession(stranger.headers),
      `stove_status ${domain.did}`)
    const [refused] = (await offline.h.transcript(stranger.headers, other.json().sessionId)).at(-1).toolCalls
    expect(refused.status).toBe('error')
    expect(JSON.parse(refused.output)).toMatchObject({ error: 'AUTHORISATION_REQUIRED' })
  })
})

describe('platform plugin switch', () => {
  const decision = (env: Record<string, string>, features: Record<string, boolean> = {}) =>
    resolvePlugins(BUILTIN_PLUGINS, features, loadConfig(env)).decisions.find((d) => d.name === 'platform')

  it('is on by default with DOMAIN_API_URL, off without it, and features can turn it off', () => {
    expect(withModel.h.runtime.pluginDecisions).toContainEqual(
      { name: 'platform', enabled: true, reason: 'on by default' })
    expect(decision({})).toEqual({ name: 'platform', enabled: false, reason: 'missing DOMAIN_API_URL' })
    expect(decision({ DOMAIN_API_URL: registry.url }, { platform: false }))
      .toEqual({ name: 'platform', enabled: false, reason: 'disabled by features' })
    expect(() => resolvePlugins(BUILTIN_PLUGINS, { platform: true }, loadConfig({})))
      .toThrow('plugin platform is enabled but DOMAIN_API_URL is not set')
  })

  it('refuses settings that need a URL which is not set', () => {
    expect(() => loadConfig({ DOMAIN_API_DID: registry.did }))
      .toThrow('DOMAIN_API_DID is set but DOMAIN_API_URL is not')
    expect(() => loadConfig({ CHAIN_REST_API_KEY: 'k' })).toThrow('CHAIN_REST_API_KEY is set but CHAIN_REST_URL is not')
    expect(() => loadConfig({ DOMAIN_API_URL: registry.url, PLATFORM_DEFAULT_PROTOCOL: 'stove' }))
      .toThrow(/PLATFORM_DEFAULT_PROTOCOL/)
  })
})
