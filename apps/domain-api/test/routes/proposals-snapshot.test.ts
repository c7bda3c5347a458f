import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  castVote, createProposal, issueGovernance, vote, voteThrough, withCouncil, type Governance
} from '../governance.ts'
import { randomAccount, startApp, type TestApp } from '../helper.ts'

const HOUR = 3_600_000
let t: TestApp
let keys: Governance

beforeAll(async () => {
  t = await startApp()
  keys = await issueGovernance(t)
}, 60_000)
afterAll(async () => { await t?.close() })

const read = async (url: string) =>
  (await t.app.inject({ method: 'GET', url, headers: t.auth(keys.registrar.key) })).json()
const getDomain = async (did: string) => await read(`/v1/domains/${did}`)
const getProposal = async (id: string) => await read(`/v1/verification-proposals/${id}`)
const patch = async (did: string, payload: object) =>
  await t.app.inject({ method: 'PATCH', url: `/v1/domains/${did}`, headers: t.auth(keys.registrar.key), payload })

/** A verified domain of the file's registrar, with a validity period. */
async function verified (body: Record<string, unknown> = {}) {
  const { did } = await t.createDomain(keys.registrar.key, { validUntil: t.clock.at(100 * HOUR), ...body })
  await voteThrough(t, did, keys.compliance, keys.voters)
  return did
}

/** The test's own canonical JSON (keys sorted at every level), to check a hash independently of the service. */
const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as any)[k])}`).join(',')}}`
  }
  return JSON.stringify(value)
}

describe('a verification is of a snapshot', () => {
  it('records the hash and content of what it reviews when the proposal opens', async () => {
    const { did } = await t.createDomain(keys.registrar.key, {
      metadata: { name: 'Kitchen 7', site: { lat: -1.28, lon: 36.82 } },
      alsoKnownAs: ['https://example.org/kitchen-7']
    })
    const draft = await getDomain(did)
    expect(draft).toMatchObject({ status: 'draft', verified: false, verifiedHash: null })
    const { id } = await createProposal(t, did, keys.compliance.key, withCouncil(keys.voters))
    const proposal = await getProposal(id)
    expect(proposal).toMatchObject({ kind: 'verify', snapshotHash: draft.contentHash, validUntil: null })
    expect(proposal.snapshot.hash).toBe(draft.contentHash)
    expect(proposal.snapshot.content).toEqual({
      type: 'project',
      class: draft.class,
      controllers: [keys.registrar.account],
      metadata: { name: 'Kitchen 7', site: { lat: -1.28, lon: 36.82 } },
      validFrom: null,
      validUntil: null,
      alsoKnownAs: ['https://example.org/kitchen-7']
    })
    // Anyone can check the hash from the content alone.
    const digest = createHash('sha256').update(canonical(proposal.snapshot.content)).digest('hex')
    expect(proposal.snapshotHash).toBe(`sha256:${digest}`)

    for (const voter of keys.voters) await castVote(t, id, voter.key)
    expect(await getDomain(did)).toMatchObject({
      status: 'verified', verified: true, usable: true, contentHash: draft.contentHash, verifiedHash: draft.contentHash
    })
  })

  it('makes a verified domain changed and not usable when its reviewed content changes, with before and after',
    async () => {
      const did = await verified()
      const before = await getDomain(did)
      const res = await patch(did, { metadata: { name: 'Renamed kitchen' } })
      expect(res.statusCode).toBe(200)
      const after = res.json()
      expect(after).toMatchObject({
        status: 'changed', verified: false, usable: false, verifiedAt: null, verifiedHash: before.verifiedHash
      })
      expect(after.contentHash).not.toBe(before.contentHash)
      expect(await getDomain(did)).toEqual(after)

      const last = (await t.history(did, keys.registrar.key)).at(-1)
      expect(last).toMatchObject({
        event: 'changed',
        fromStatus: 'verified',
        toStatus: 'changed',
        details: {
          changed: ['metadata'],
          changes: { metadata: { before: before.metadata, after: { name: 'Renamed kitchen' } } },
          contentHash: { before: before.contentHash, after: after.contentHash }
        }
      })
      expect(last!.reason).toContain('not usable until a new verification passes')

      // Search, the DID document and GraphQL agree.
      const listed = async (query: string) => (await read(`/v1/domains?controller=${keys.registrar.account}` +
        `&limit=100&${query}`)).items.map((d: { did: string }) => d.did)
      expect(await listed('usable=true')).not.toContain(did)
      expect(await listed('usable=false')).toContain(did)
      expect(await listed('status=changed')).toContain(did)
      const resolved = await t.app.inject({ method: 'GET', url: `/1.0/identifiers/${did}` })
      expect(resolved.json().didDocumentMetadata).toMatchObject({ status: 'changed', verified: false })
      const graphql = await t.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: t.auth(keys.registrar.key),
        payload: { query: `{ domain(did: "${did}") { status verified usable contentHash verifiedHash } }` }
      })
      expect(graphql.json().data.domain).toEqual({
        status: 'changed',
        verified: false,
        usable: false,
        contentHash: after.contentHash,
        verifiedHash: before.verifiedHash
      })
    })

  it('counts controllers and DID document fields as reviewed content, but not a write that changes nothing',
    async () => {
      const did = await verified({ metadata: { name: 'Same' } })
      const unchanged = await patch(did, { metadata: { name: 'Same' } })
      expect(unchanged.json()).toMatchObject({ status: 'verified', usable: true })
      expect((await t.history(did, keys.registrar.key)).at(-1))
        .toMatchObject({ event: 'updated', details: { changes: {} } })

      const partner = randomAccount()
      const res = await patch(did, { controllers: [keys.registrar.account, partner] })
      expect(res.json()).toMatchObject({ status: 'changed', usable: false })
      expect((await t.history(did, keys.registrar.key)).at(-1)!.details.changes).toEqual({
        controllers: { before: [keys.registrar.account], after: [keys.registrar.account, partner] }
      })

      const other = await verified()
      const service = { id: 'web', type: 'LinkedDomains', serviceEndpoint: 'https://x.org' }
      const linked = await patch(other, { services: [service] })
      expect(linked.json()).toMatchObject({ status: 'changed', usable: false })
    })

  it('stays not usable until a new verification of the changed content passes', async () => {
    const did = await verified()
    await patch(did, { metadata: { name: 'Second edition' } })
    const changed = await getDomain(did)
    const again = await createProposal(t, did, keys.compliance.key, withCouncil(keys.voters))
    expect(again.snapshotHash).toBe(changed.contentHash)
    expect(await getDomain(did)).toMatchObject({ status: 'verification_submitted', usable: false })
    for (const voter of keys.voters) await castVote(t, again.id, voter.key)
    expect(await getDomain(did)).toMatchObject({
      status: 'verified', usable: true, verified: true, verifiedHash: changed.contentHash
    })
  })

  it('supersedes an open proposal when the reviewed content changes, leaving the domain as it was', async () => {
    const { did } = await t.createDomain(keys.registrar.key)
    const { id } = await createProposal(t, did, keys.compliance.key, withCouncil(keys.voters))
    await castVote(t, id, keys.voters[0]!.key)
    const res = await patch(did, { validUntil: t.clock.at(50 * HOUR) })
    expect(res.json()).toMatchObject({ status: 'draft', verification: { proposalId: id, status: 'superseded' } })
    const proposal = await getProposal(id)
    expect(proposal).toMatchObject({ status: 'superseded', closedAt: new Date(t.clock.now()).toISOString() })
    expect(proposal.outcomeReason).toContain(`snapshot ${proposal.snapshotHash}, now ${res.json().contentHash}`)
    const late = await vote(t, id, keys.voters[1]!.key)
    expect(late.statusCode).toBe(409)
    expect(late.json().code).toBe('DOMAIN_PROPOSAL_CLOSED')
    expect((await t.history(did, keys.registrar.key)).slice(-2).map((e) => [e.event, e.toStatus, e.proposalId]))
      .toEqual([['updated', 'draft', id], ['proposal_superseded', 'draft', id]])
    const superseded = await read(`/v1/domains/${did}/verification-proposals?status=superseded`)
    expect(superseded.items.map((p: { id: string }) => p.id)).toEqual([id])
    // The changed content gets a proposal of its own.
    expect((await createProposal(t, did, keys.compliance.key, withCouncil(keys.voters))).status).toBe('open')
  })

  it('leaves a changed domain changed when the verification reviewing it is superseded', async () => {
    const did = await verified()
    await patch(did, { metadata: { name: 'v2' } })
    const { id } = await createProposal(t, did, keys.compliance.key, withCouncil(keys.voters))
    const res = await patch(did, { metadata: { name: 'v3' } })
    expect(res.json()).toMatchObject({ status: 'changed', verification: { proposalId: id, status: 'superseded' } })
  })

  it('does not leave a renewed domain reading verified', async () => {
    const did = await verified({ validUntil: t.clock.at(2 * HOUR) })
    t.clock.advance(2 * HOUR)
    expect(await getDomain(did)).toMatchObject({ status: 'expired', verified: true, usable: false })
    const renewed = await patch(did, { validUntil: t.clock.at(48 * HOUR) })
    expect(renewed.json()).toMatchObject({
      status: 'draft', verified: false, usable: false, verifiedAt: null, verifiedHash: null
    })
    const resolved = await t.app.inject({ method: 'GET', url: `/1.0/identifiers/${did}` })
    expect(resolved.json().didDocumentMetadata).toMatchObject({ status: 'draft', verified: false })
    expect((await t.history(did, keys.registrar.key)).at(-1)).toMatchObject({
      event: 'renewed',
      toStatus: 'draft',
      details: { changes: { validUntil: { before: t.clock.at(0), after: t.clock.at(48 * HOUR) } } }
    })
  })
})
