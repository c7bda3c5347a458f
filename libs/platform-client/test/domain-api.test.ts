import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeBase64Car, generateSigner, mintDelegation, mintInvocation, type OracleSigner } from '@impact/ucan'
import { startDomainApi, type LoopbackDomainApi } from '@impact/domain-api/testing'
import { createPlatformClient, PlatformClientError, type PlatformClient } from '../src/index.ts'
import { PROTOCOL } from './services.ts'

let registry: LoopbackDomainApi
let oracle: OracleSigner
let platform: PlatformClient

beforeAll(async () => {
  registry = await startDomainApi()
  oracle = await generateSigner()
  platform = createPlatformClient({ domainApiUrl: registry.url })
})
afterAll(async () => { await registry?.close() })

const nowS = () => Math.floor(Date.now() / 1000)
const STOVE = { type: 'Device', class: PROTOCOL, metadata: { name: 'Stove 12, Kisumu' } }

/** A fresh user who delegated `can` on their DID to the oracle, and the client acting for them. */
async function userDelegating (can = 'domain/*', options: { expiration?: number } = {}) {
  const user = await generateSigner()
  const proof = await mintDelegation({
    issuer: user,
    audience: oracle,
    capabilities: [{ can, with: user.did() }, { can: '*', with: 'ixo:oracle' }],
    ...options
  })
  return { user, proof, client: platform.actingAs({ signer: oracle, proof }) }
}

/** What a call rejected with. */
async function failure (call: Promise<unknown>): Promise<PlatformClientError> {
  const error = await call.then(() => undefined, (e: unknown) => e)
  if (!(error instanceof PlatformClientError)) throw new Error(`expected a PlatformClientError, got ${String(error)}`)
  return error
}

const ucanRequests = () => registry.seen.filter((r) => r.url !== '/').length

describe('acting as the user through the oracle', () => {
  it('registers a domain controlled by the user, with the oracle named as acting service', async () => {
    const { user, client } = await userDelegating()
    const domain = await client.registerDomain(STOVE)
    expect(domain).toMatchObject({ controllers: [user.did()], status: 'draft', verified: false, usable: false })
    expect(domain.createdBy).toEqual({ keyId: null, account: user.did(), service: oracle.did() })

    const history = await client.getDomainHistory(domain.did)
    expect(history.items.map((e) => [e.event, e.actor])).toEqual([
      ['created', { kind: 'ucan', keyId: null, account: user.did(), service: oracle.did() }]
    ])
    expect(await client.getDomain(domain.did)).toMatchObject({ did: domain.did, metadata: STOVE.metadata })
    const mine = await client.searchDomains({ controller: user.did(), type: 'Device' })
    expect(mine.items.map((d) => d.did)).toEqual([domain.did])

    const status = await client.graphql<{ domain: { status: string, verified: boolean, controllers: string[] } }>(
      'query ($did: ID!) { domain(did: $did) { status verified controllers } }', { did: domain.did }
    )
    expect(status).toEqual({ data: { domain: { status: 'draft', verified: false, controllers: [user.did()] } } })
  })

  it('registers devices in bulk with a result per item, and replays the batch under its idempotency key', async () => {
    const { user, client } = await userDelegating()
    const serial = `SN-${Math.random().toString(36).slice(2, 10)}`
    const items = [
      { ...STOVE, externalId: serial },
      { ...STOVE, externalId: serial },
      { ...STOVE, validFrom: '2030-01-01T00:00:00Z', validUntil: '2029-01-01T00:00:00Z' }
    ]
    const key = `bulk-${serial}`
    const result = await client.registerDomains(items, { idempotencyKey: key })
    expect(result).toMatchObject({ created: 1, failed: 2 })
    expect(result.items.map((item) => [item.index, item.status, item.error?.code])).toEqual([
      [0, 'created', undefined], [1, 'error', 'DOMAIN_EXTERNAL_ID_TAKEN'], [2, 'error', 'DOMAIN_INVALID_REQUEST']
    ])
    const did = result.items[0]?.did ?? ''
    expect(await client.getDomain(did)).toMatchObject({ externalId: serial, controllers: [user.did()] })
    expect(await client.registerDomains(items, { idempotencyKey: key })).toEqual(result)
    expect((await client.searchDomains({ externalId: serial })).items.map((d) => d.did)).toEqual([did])
  })

  it('throws for a batch refused whole, with the field that broke the schema', async () => {
    const { client } = await userDelegating()
    const error = await failure(client.registerDomains([STOVE, { ...STOVE, externalId: 'has space' }]))
    expect(error).toMatchObject({ statusCode: 400, service: 'domain-api' })
    expect(error.details).toEqual(expect.arrayContaining([expect.objectContaining({
      field: expect.stringContaining('items/1')
    })]))
    expect(await failure(client.registerDomains([]))).toMatchObject({ statusCode: 400 })
  })

  it('sends one fresh invocation per request: oracle → registry, with = user, proof = the delegation', async () => {
    const { user, proof, client } = await userDelegating('domain/*', { expiration: nowS() + 30 })
    const before = registry.seen.length
    await client.searchDomains()
    await client.searchDomains()
    const tokens = registry.seen.slice(before).map((r) => r.authorization?.replace(/^Bearer /, '') ?? '')
    expect(tokens).toHaveLength(2)
    expect(tokens[0]).not.toBe(tokens[1])
    const invocation = await decodeBase64Car(tokens[0] ?? '')
    expect(invocation.issuer.did()).toBe(oracle.did())
    expect(invocation.audience.did()).toBe(registry.did)
    expect(invocation.capabilities).toEqual([{ can: 'domain/read', with: user.did() }])
    const delegation = await decodeBase64Car(proof)
    expect(invocation.proofs.map((p) => ('cid' in p ? p.cid : p).toString())).toEqual([delegation.cid.toString()])
    // Never outlives the delegation (30 s here, less than the 60 s an invocation may live).
    expect(invocation.expiration).toBe(delegation.expiration)
  })

  it('reports the verification of a domain with its open proposal and tally', async () => {
    const { user, client } = await userDelegating()
    const domain = await client.registerDomain(STOVE)
    expect(await client.getVerification(domain.did)).toEqual({
      did: domain.did, status: 'draft', verified: false, usable: false, proposal: null
    })
    await registry.grant(user.did(), ['compliance'])
    // A proposal needs an electorate that can reach the quorum (3) when it opens.
    for (const n of [1, 2, 3]) await registry.grant(`did:ixo:platform-client-voter-${n}`, ['voter'])
    const propose = await fetch(`${registry.url}/v1/domains/${domain.did}/verification-proposals`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await mintInvocation({
          issuer: user, audience: registry.did, capability: { can: 'verification/propose', with: user.did() }
        })}`,
        'x-auth-type': 'ucan',
        'content-type': 'application/json'
      },
      body: JSON.stringify({ evidence: 'https://example.org/stove-12/evidence' })
    })
    expect(propose.status).toBe(201)
    const verification = await client.getVerification(domain.did)
    expect(verification).toMatchObject({ status: 'verification_submitted', verified: false })
    expect(verification.proposal).toMatchObject({
      domainDid: domain.did, status: 'open', tally: { yes: 0, no: 0, abstain: 0, total: 0 }
    })
  })
})

describe('authorisation', () => {
  it('asks for authorisation before any request when the delegation lacks the ability', async () => {
    const { client } = await userDelegating('domain/read')
    const before = ucanRequests()
    const error = await failure(client.registerDomain(STOVE))
    expect(error).toMatchObject({
      code: 'AUTHORISATION_REQUIRED', statusCode: 403, ability: 'domain/create', reason: 'not_granted'
    })
    expect(error.message).toContain(`authorise ${oracle.did()} for domain/create`)
    expect(error.authorisationRequired).toBe(true)
    expect(await failure(client.assertAuthorised('domain/create'))).toMatchObject({
      code: 'AUTHORISATION_REQUIRED', ability: 'domain/create', reason: 'not_granted', message: error.message
    })
    await expect(client.assertAuthorised('domain/read')).resolves.toBeUndefined()
    expect(ucanRequests()).toBe(before)
    expect((await client.searchDomains()).items).toBeInstanceOf(Array)
  })

  it('asks for authorisation without a delegation, with an expired one or one for someone else', async () => {
    const { proof: expired } = await userDelegating('domain/*', { expiration: nowS() - 1 })
    const { proof: toAnother } = await (async () => {
      const user = await generateSigner()
      return {
        proof: await mintDelegation({
          issuer: user, audience: await generateSigner(), capabilities: [{ can: 'domain/*', with: user.did() }]
        })
      }
    })()
    const before = ucanRequests()
    const cases = [[undefined, 'no_delegation'], [expired, 'expired'], [toAnother, 'wrong_audience'],
      ['not a delegation', 'invalid']] as const
    for (const [proof, reason] of cases) {
      const asUser = platform.actingAs({ signer: oracle, proof })
      const error = await failure(asUser.getDomain(PROTOCOL))
      expect(error).toMatchObject({ code: 'AUTHORISATION_REQUIRED', ability: 'domain/read', reason })
      expect(await failure(asUser.assertAuthorised('domain/read'))).toMatchObject({ reason })
    }
    expect(ucanRequests()).toBe(before)
  })

  it('is refused by domain-api once the user revoked the delegation there', async () => {
    const { user, proof, client } = await userDelegating()
    const domain = await client.registerDomain(STOVE)
    const revoked = await platform.actingAs({ signer: user, proof: null }).revoke(proof)
    expect(revoked).toMatchObject({ ok: true, cid: (await decodeBase64Car(proof)).cid.toString() })
    const error = await failure(client.getDomain(domain.did))
    expect(error).toMatchObject({
      code: 'DOMAIN_UCAN_REVOKED', statusCode: 401, service: 'domain-api', ability: 'domain/read'
    })
    expect(error.authorisationRequired).toBe(true)
  })

  it('lets the oracle renounce the delegation it holds', async () => {
    const { client } = await userDelegating()
    await client.revoke()
    expect((await failure(client.searchDomains())).code).toBe('DOMAIN_UCAN_REVOKED')
  })

  it('has a replayed invocation refused by domain-api', async () => {
    const { client } = await userDelegating()
    const before = registry.seen.length
    await client.searchDomains()
    const sent = registry.seen[before]
    const replay = await fetch(`${registry.url}/v1/domains`, {
      headers: { authorization: sent?.authorization ?? '', 'x-auth-type': 'ucan' }
    })
    expect(replay.status).toBe(401)
    expect(await replay.json()).toMatchObject({ code: 'DOMAIN_UCAN_REPLAYED' })
  })

  it('acts for the signer itself with proof: null', async () => {
    const own = platform.actingAs({ signer: await generateSigner(), proof: null })
    const domain = await own.registerDomain(STOVE)
    expect(domain.createdBy.service).toBeNull()
  })
})

describe('service DID and errors', () => {
  it('reads the registry\'s DID from GET / once, and uses a configured one without asking', async () => {
    const fresh = createPlatformClient({ domainApiUrl: registry.url })
    const { proof } = await userDelegating()
    const before = registry.seen.filter((r) => r.url === '/').length
    const client = fresh.actingAs({ signer: oracle, proof })
    await Promise.all([client.searchDomains(), client.searchDomains()])
    await client.searchDomains()
    expect(registry.seen.filter((r) => r.url === '/').length).toBe(before + 1)

    const configured = createPlatformClient({ domainApiUrl: registry.url, domainApiDid: registry.did })
    await configured.actingAs({ signer: oracle, proof }).searchDomains()
    expect(registry.seen.filter((r) => r.url === '/').length).toBe(before + 1)

    const wrong = createPlatformClient({ domainApiUrl: registry.url, domainApiDid: oracle.did() })
    const error = await failure(wrong.actingAs({ signer: oracle, proof }).searchDomains())
    expect(error).toMatchObject({ code: 'DOMAIN_UCAN_INVALID_INVOCATION', statusCode: 401 })
  })

  it('maps the registry\'s error body: code, status and field details', async () => {
    const { client } = await userDelegating()
    expect(await failure(client.getDomain('did:ixo:entity:ffffffffffffffffffffffffffffffff'))).toMatchObject({
      code: 'DOMAIN_NOT_FOUND', statusCode: 404, service: 'domain-api'
    })
    const invalid = await failure(client.registerDomain({
      ...STOVE,
      validFrom: '2030-01-01T00:00:00Z',
      validUntil: '2029-01-01T00:00:00Z'
    }))
    expect(invalid).toMatchObject({ statusCode: 400 })
    expect(invalid.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: expect.any(String) })]))
    const query = await failure(client.graphql('{ domain(did: 1) { nope } }'))
    expect(query).toMatchObject({ code: 'DOMAIN_GRAPHQL_INVALID', statusCode: 400 })
  })

  it('says what is missing when a URL or an actor is not configured', async () => {
    expect(await failure(createPlatformClient().actingAs({ signer: oracle, proof: null }).searchDomains()))
      .toMatchObject({ code: 'PLATFORM_NOT_CONFIGURED', service: 'domain-api' })
    expect(await failure(platform.searchDomains())).toMatchObject({ code: 'PLATFORM_NOT_CONFIGURED' })
    expect(await failure(platform.assertAuthorised('domain/read'))).toMatchObject({ code: 'PLATFORM_NOT_CONFIGURED' })
  })
})
