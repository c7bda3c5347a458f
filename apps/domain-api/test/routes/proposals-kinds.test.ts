import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import {
  castVote, createProposal, issueGovernance, PROPOSAL, propose, vote, voteThrough, withCouncil, type Governance
} from '../governance.ts'
import { startApp, type TestApp } from '../helper.ts'
import { hookedReceiver, waitFor } from '../webhook-receiver.ts'

const HOUR = 3_600_000
// Whole governance walks per test: room for a loaded machine.
vi.setConfig({ testTimeout: 30_000 })
let t: TestApp
let keys: Governance
let vetoer: { key: string, account: string }

beforeAll(async () => {
  t = await startApp({ WEBHOOK_POLL_INTERVAL_MS: '20', WEBHOOK_RETRY_BASE_MS: '20' })
  keys = await issueGovernance(t)
  vetoer = await t.issueKey(['vetoer'])
}, 60_000)
afterAll(async () => { await t?.close() })

const read = async (url: string) =>
  (await t.app.inject({ method: 'GET', url, headers: t.auth(keys.registrar.key) })).json()
const getDomain = async (did: string) => await read(`/v1/domains/${did}`)
const getProposal = async (id: string) => await read(`/v1/verification-proposals/${id}`)
const council = (payload: object) => withCouncil(keys.voters, { ...PROPOSAL, ...payload })
const openKind = async (did: string, payload: object) =>
  await createProposal(t, did, keys.compliance.key, council(payload))
const passAll = async (id: string) => { for (const voter of keys.voters) await castVote(t, id, voter.key) }
/** Two no votes of the three-member council reject a proposal at once. */
const rejectNow = async (id: string) => {
  for (const voter of keys.voters.slice(0, 2)) await castVote(t, id, voter.key, 'no')
}
const lastEvent = async (did: string) => (await t.history(did, keys.registrar.key)).at(-1)

/** A verified domain valid for a hundred hours from now. */
async function verified () {
  const { did } = await t.createDomain(keys.registrar.key, { validUntil: t.clock.at(100 * HOUR) })
  await voteThrough(t, did, keys.compliance, keys.voters)
  return did
}

describe('revoke proposals', () => {
  it('leave the domain verified and usable while open, and revoke it when they pass', async () => {
    const did = await verified()
    const { id, snapshotHash } = await openKind(did, { kind: 'revoke', note: 'stove no longer in service' })
    const open = await getDomain(did)
    expect(open).toMatchObject({
      status: 'verified', usable: true, verification: { proposalId: id, kind: 'revoke', status: 'open' }
    })
    expect(snapshotHash).toBe(open.contentHash)
    expect(await lastEvent(did)).toMatchObject({
      event: 'revocation_proposed',
      fromStatus: 'verified',
      toStatus: 'verified',
      proposalId: id,
      reason: 'stove no longer in service'
    })

    await passAll(id)
    expect(await getProposal(id)).toMatchObject({ kind: 'revoke', status: 'passed' })
    expect(await getDomain(did)).toMatchObject({
      status: 'revoked', verified: false, usable: false, verifiedAt: null, verifiedHash: null
    })
    expect(await lastEvent(did)).toMatchObject({
      event: 'revoked',
      fromStatus: 'verified',
      toStatus: 'revoked',
      actor: { kind: 'governance' },
      details: { kind: 'revoke', outcome: 'passed', snapshotHash }
    })
    const listed = await read(`/v1/domains?controller=${keys.registrar.account}&usable=true&limit=100`)
    expect(listed.items.map((d: { did: string }) => d.did)).not.toContain(did)

    // A revoked domain may be verified again.
    await voteThrough(t, did, keys.compliance, keys.voters)
    expect(await getDomain(did)).toMatchObject({ status: 'verified', usable: true })
  })

  it('keep the verification when rejected at the deadline or vetoed', async () => {
    const did = await verified()
    const { id } = await openKind(did, { kind: 'revoke' })
    await castVote(t, id, keys.voters[0]!.key, 'yes')
    t.clock.advance(HOUR)
    expect(await getDomain(did)).toMatchObject({
      status: 'verified', usable: true, verification: { proposalId: id, kind: 'revoke', status: 'rejected' }
    })
    expect(await lastEvent(did)).toMatchObject({
      event: 'revocation_rejected', toStatus: 'verified', details: { outcome: 'rejected' }
    })

    const second = await openKind(did, { kind: 'revoke' })
    await castVote(t, second.id, vetoer.key, 'veto')
    expect(await getDomain(did)).toMatchObject({ status: 'verified', usable: true })
    expect(await lastEvent(did)).toMatchObject({
      event: 'revocation_rejected', details: { outcome: 'vetoed', decidingVote: { account: vetoer.account } }
    })
  })

  it('apply to verified domains only, one open proposal at a time', async () => {
    const draft = await t.createDomain(keys.registrar.key)
    const refused = await propose(t, draft.did, keys.compliance.key, council({ kind: 'revoke' }))
    expect(refused.statusCode).toBe(409)
    expect(refused.json()).toMatchObject({ code: 'DOMAIN_NOT_VERIFIED' })
    expect(refused.json().message).toContain('is draft')

    const did = await verified()
    await openKind(did, { kind: 'revoke' })
    for (const kind of ['revoke', 'verify']) {
      const again = await propose(t, did, keys.compliance.key, council({ kind }))
      expect(again.statusCode).toBe(409)
      expect(again.json().code).toBe('DOMAIN_STATE_CONFLICT')
    }
    const unknown = await propose(t, did, keys.compliance.key, council({ kind: 'suspend' }))
    expect(unknown.statusCode).toBe(400)
  })

  it('are superseded by a change to the reviewed content, which leaves the domain changed', async () => {
    const did = await verified()
    const { id } = await openKind(did, { kind: 'revoke' })
    const res = await t.app.inject({
      method: 'PATCH', url: `/v1/domains/${did}`, headers: t.auth(keys.registrar.key), payload: { metadata: { v: 2 } }
    })
    expect(res.json()).toMatchObject({ status: 'changed', usable: false, verification: { status: 'superseded' } })
    expect((await vote(t, id, keys.voters[0]!.key)).json().code).toBe('DOMAIN_PROPOSAL_CLOSED')
    const onChanged = await propose(t, did, keys.compliance.key, council({ kind: 'revoke' }))
    expect(onChanged.json()).toMatchObject({ statusCode: 409, code: 'DOMAIN_NOT_VERIFIED' })
  })
})

describe('validity proposals', () => {
  it('move validUntil when they pass, keeping the verification and moving its hash along', async () => {
    const did = await verified()
    const before = await getDomain(did)
    const extended = t.clock.at(200 * HOUR)
    const { id } = await openKind(did, { kind: 'validity', validUntil: extended })
    expect(await getProposal(id)).toMatchObject({ kind: 'validity', validUntil: extended, status: 'open' })
    expect(await getDomain(did)).toMatchObject({ status: 'verified', usable: true, validUntil: before.validUntil })

    await passAll(id)
    const after = await getDomain(did)
    expect(after).toMatchObject({ status: 'verified', verified: true, usable: true, validUntil: extended })
    expect(after.verifiedHash).toBe(after.contentHash)
    expect(after.contentHash).not.toBe(before.contentHash)
    expect(await lastEvent(did)).toMatchObject({
      event: 'validity_changed',
      fromStatus: 'verified',
      toStatus: 'verified',
      details: { outcome: 'passed', changes: { validUntil: { before: before.validUntil, after: extended } } }
    })
    // The approved content now has the new validUntil: the domain is usable until then.
    t.clock.advance(150 * HOUR)
    expect(await getDomain(did)).toMatchObject({ status: 'verified', usable: true })
  })

  it('shorten validity: passing at the deadline, the domain then expires at the new validUntil', async () => {
    const did = await verified()
    const shortened = t.clock.at(3 * HOUR)
    // Five members: two yes and an abstention pass at the deadline, but not before (two no could follow).
    const members = [...keys.voters, ...await Promise.all([1, 2].map(async () => await t.issueKey(['voter'])))]
    const { id } = await createProposal(t, did, keys.compliance.key,
      withCouncil(members, { ...PROPOSAL, kind: 'validity', validUntil: shortened }))
    await castVote(t, id, members[0]!.key)
    await castVote(t, id, members[1]!.key)
    await castVote(t, id, members[2]!.key, 'abstain')
    expect((await getProposal(id)).status).toBe('open')
    t.clock.advance(HOUR)
    expect(await getDomain(did)).toMatchObject({ status: 'verified', usable: true, validUntil: shortened })
    t.clock.advance(2 * HOUR)
    expect(await getDomain(did)).toMatchObject({ status: 'expired', usable: false })
    expect((await t.history(did, keys.registrar.key)).slice(-2).map((e) => [e.event, e.at]))
      .toEqual([['validity_changed', t.clock.at(-2 * HOUR)], ['expired', shortened]])
  })

  it('leave validUntil as it was when rejected', async () => {
    const did = await verified()
    const before = await getDomain(did)
    const { id } = await openKind(did, { kind: 'validity', validUntil: t.clock.at(300 * HOUR) })
    await rejectNow(id)
    expect(await getDomain(did)).toMatchObject({ status: 'verified', validUntil: before.validUntil })
    expect(await lastEvent(did)).toMatchObject({ event: 'validity_rejected', details: { outcome: 'rejected' } })
  })

  it('need a new validUntil that the validity rules accept', async () => {
    const did = await verified()
    const current = (await getDomain(did)).validUntil
    const cases: Array<[object, string]> = [
      [{ kind: 'validity' }, 'is required'],
      [{ kind: 'validity', validUntil: t.clock.at(-HOUR) }, 'must be in the future'],
      [{ kind: 'validity', validUntil: current }, 'must change it'],
      [{ validUntil: t.clock.at(HOUR) }, 'only with kind validity'],
      [{ kind: 'revoke', validUntil: t.clock.at(HOUR) }, 'only with kind validity']
    ]
    for (const [payload, message] of cases) {
      const res = await propose(t, did, keys.compliance.key, council(payload))
      expect(res.statusCode).toBe(400)
      expect(res.json()).toMatchObject({ code: 'DOMAIN_INVALID_REQUEST', details: [{ field: '/validUntil', message }] })
    }
    const draft = await t.createDomain(keys.registrar.key)
    const notVerified = await propose(t, draft.did, keys.compliance.key,
      council({ kind: 'validity', validUntil: t.clock.at(HOUR) }))
    expect(notVerified.json()).toMatchObject({ statusCode: 409, code: 'DOMAIN_NOT_VERIFIED' })
  })
})

it('announces each outcome on the feed and to webhooks', async () => {
  const events = ['revocation_proposed', 'revoked', 'revocation_rejected', 'validity_proposed', 'validity_changed',
    'validity_rejected', 'changed', 'proposal_superseded']
  const { receiver } = await hookedReceiver(t, { events })
  const did = await verified()
  const longer = await openKind(did, { kind: 'validity', validUntil: t.clock.at(120 * HOUR) })
  await passAll(longer.id)
  const shorter = await openKind(did, { kind: 'validity', validUntil: t.clock.at(90 * HOUR) })
  await rejectNow(shorter.id)
  const kept = await openKind(did, { kind: 'revoke' })
  await rejectNow(kept.id)
  const revocation = await openKind(did, { kind: 'revoke' })
  await passAll(revocation.id)
  const other = await verified()
  await openKind(other, { kind: 'revoke' })
  await t.app.inject({
    method: 'PATCH', url: `/v1/domains/${other}`, headers: t.auth(keys.registrar.key), payload: { metadata: { v: 2 } }
  })

  const expected = [
    [did, 'validity_proposed'], [did, 'validity_changed'], [did, 'validity_proposed'], [did, 'validity_rejected'],
    [did, 'revocation_proposed'], [did, 'revocation_rejected'], [did, 'revocation_proposed'], [did, 'revoked'],
    [other, 'revocation_proposed'], [other, 'changed'], [other, 'proposal_superseded']
  ]
  const delivered = () => receiver.received.map((r) => JSON.parse(r.body) as { domainDid: string, event: string })
    .filter((e) => e.domainDid === did || e.domainDid === other)
  await waitFor(() => delivered().length >= expected.length, 'the outcome deliveries')
  expect(delivered().map((e) => [e.domainDid, e.event])).toEqual(expected)
  const feed = await read(`/v1/events?types=${events.join(',')}&limit=500`)
  expect(feed.items.filter((e: { domainDid: string }) => e.domainDid === did || e.domainDid === other)
    .map((e: { domainDid: string, event: string }) => [e.domainDid, e.event])).toEqual(expected)
})

it('shows an outcome due at a deadline before it is recorded, as recording it will', async () => {
  const members = [...keys.voters, ...await Promise.all([1, 2].map(async () => await t.issueKey(['voter'])))]
  // Two yes and an abstention of five: passing at the deadline, not before.
  const passAtDeadline = async (did: string, payload: object) => {
    const { id } = await createProposal(t, did, keys.compliance.key, withCouncil(members, { ...PROPOSAL, ...payload }))
    for (const [i, choice] of ['yes', 'yes', 'abstain'].entries()) await castVote(t, id, members[i]!.key, choice)
  }
  const revoked = await verified()
  const extended = await verified()
  const validUntil = t.clock.at(150 * HOUR)
  await passAtDeadline(revoked, { kind: 'revoke' })
  await passAtDeadline(extended, { kind: 'validity', validUntil })
  // A device under each: GraphQL loads linked domains as stored, without settling them.
  const devices = await Promise.all([revoked, extended].map(async (parent) =>
    (await t.createDomain(keys.registrar.key, { type: 'Device', links: { parent } })).did))
  t.clock.advance(HOUR)
  const linked = async (device: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: t.auth(keys.registrar.key),
      payload: {
        query: `{ domain(did: "${device}") { links { relationship domain { status verified usable validUntil ` +
          'contentHash verifiedHash latestProposal { kind status } } } } }'
      }
    })
    return res.json().data.domain.links.find((l: { relationship: string }) => l.relationship === 'parent').domain
  }
  expect(await linked(devices[0]!)).toMatchObject({
    status: 'revoked', verified: false, usable: false, verifiedHash: null, latestProposal: { kind: 'revoke' }
  })
  const moved = await linked(devices[1]!)
  expect(moved).toMatchObject({ status: 'verified', usable: true, validUntil, latestProposal: { kind: 'validity' } })
  expect(moved.contentHash).toBe(moved.verifiedHash)
  // Recording them changes nothing a reader saw.
  expect(await getDomain(revoked)).toMatchObject({ status: 'revoked', verified: false })
  expect(await getDomain(extended)).toMatchObject({ validUntil, contentHash: moved.contentHash })
})

describe('proposal listings by kind', () => {
  it('keep one kind in REST and GraphQL, and refuse an unknown one', async () => {
    const did = await verified()
    const { id } = await openKind(did, { kind: 'revoke', note: 'listed by kind' })
    const revokes = await read('/v1/verification-proposals?kind=revoke&limit=100')
    expect(revokes.items.map((p: { id: string }) => p.id)).toContain(id)
    expect(new Set(revokes.items.map((p: { kind: string }) => p.kind))).toEqual(new Set(['revoke']))
    const ofDomain = await read(`/v1/domains/${did}/verification-proposals?kind=verify`)
    expect(ofDomain.items.map((p: { kind: string }) => p.kind)).toEqual(['verify'])

    const graphql = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: t.auth(keys.registrar.key),
      payload: { query: '{ verificationProposals(kind: revoke, first: 100) { edges { node { id kind } } } }' }
    })
    const nodes = graphql.json().data.verificationProposals.edges.map((e: { node: object }) => e.node)
    expect(nodes.map((n: { id: string }) => n.id)).toEqual(revokes.items.map((p: { id: string }) => p.id))

    const bad = await t.app.inject({
      method: 'GET', url: '/v1/verification-proposals?kind=bogus', headers: t.auth(keys.registrar.key)
    })
    expect(bad.statusCode).toBe(400)
    expect(bad.json()).toMatchObject({ statusCode: 400 })
  })
})
