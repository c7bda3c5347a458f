import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issueGovernance, propose, PROPOSAL, vote, withCouncil } from '../governance.ts'
import { startApp, type TestApp } from '../helper.ts'

const HOUR = 3_600_000
let t: TestApp
let registrar: { id: string, key: string, account: string }
let compliance: { id: string, key: string, account: string }
let voters: Array<{ id: string, key: string, account: string }>

beforeAll(async () => {
  t = await startApp()
  ;({ registrar, compliance, voters } = await issueGovernance(t, 12))
})
afterAll(async () => { await t?.close() })

const getDomain = async (did: string) =>
  (await t.app.inject({ method: 'GET', url: `/v1/domains/${did}`, headers: t.auth(registrar.key) })).json()
const getProposal = async (id: string) =>
  (
    await t.app.inject({ method: 'GET', url: `/v1/verification-proposals/${id}`, headers: t.auth(registrar.key) })
  ).json()
const history = async (did: string) => await t.history(did, registrar.key)

/** A new domain under review; by default every voter of the file votes, `council` names three instead. */
async function openProposal (body: Record<string, unknown> = {}, council?: Array<{ account: string }>) {
  const domain = await t.createDomain(registrar.key, body)
  const res = await propose(t, domain.did, compliance.key, council === undefined ? PROPOSAL : withCouncil(council))
  expect(res.statusCode).toBe(201)
  return { did: domain.did, proposal: res.json() }
}

describe('verification by governance', () => {
  it('create → propose → vote → verified and usable, every transition recorded', async () => {
    const { did, proposal } = await openProposal({}, voters.slice(0, 3))
    expect(proposal).toMatchObject({
      domainDid: did,
      status: 'open',
      quorum: 3,
      quorumRule: '3',
      threshold: 0.6,
      electorate: { source: 'council', size: 3, vetoers: 0 },
      eligible: { voters: voters.slice(0, 3).map((v) => v.account).sort(), vetoers: [] },
      tally: { yes: 0, no: 0, abstain: 0, veto: 0, total: 0 },
      evidence: 'ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi',
      proposedBy: { keyId: compliance.id, account: compliance.account }
    })
    expect(Date.parse(proposal.deadline) - t.clock.now()).toBe(HOUR)
    expect(await getDomain(did)).toMatchObject({
      status: 'verification_submitted',
      usable: false,
      verification: { proposalId: proposal.id, status: 'open' }
    })

    expect((await vote(t, proposal.id, voters[0]!.key, 'yes')).json().tally).toEqual({
      yes: 1,
      no: 0,
      abstain: 0,
      veto: 0,
      total: 1
    })
    expect((await vote(t, proposal.id, voters[1]!.key, 'no')).json().status).toBe('open')
    const passing = await vote(t, proposal.id, voters[2]!.key, 'yes')
    expect(passing.statusCode).toBe(201)
    expect(passing.json()).toMatchObject({ status: 'passed', tally: { yes: 2, no: 1, abstain: 0, total: 3 } })
    expect(
      passing
        .json()
        .votes.map((v: { keyId: string }) => v.keyId)
        .sort()
    ).toEqual([voters[0]!.id, voters[1]!.id, voters[2]!.id].sort())

    const domain = await getDomain(did)
    expect(domain).toMatchObject({
      status: 'verified',
      verified: true,
      usable: true,
      verification: { proposalId: proposal.id, status: 'passed' }
    })
    expect(domain.verifiedAt).not.toBeNull()
    const events = await history(did)
    expect(events.map((e) => [e.event, e.fromStatus, e.toStatus])).toEqual([
      ['created', null, 'draft'],
      ['verification_proposed', 'draft', 'verification_submitted'],
      ['verified', 'verification_submitted', 'verified']
    ])
    expect(events[1]).toMatchObject({
      actor: { kind: 'api-key', keyId: compliance.id, account: compliance.account },
      proposalId: proposal.id,
      reason: 'site visit done'
    })
    expect(events[2]).toMatchObject({ actor: { kind: 'governance' }, proposalId: proposal.id })
    expect(events[2]!.reason).toContain('2 yes, 1 no, 0 abstain')

    const late = await vote(t, proposal.id, voters[3]!.key, 'yes')
    expect(late.statusCode).toBe(409)
    expect(late.json().code).toBe('DOMAIN_PROPOSAL_CLOSED')
    const again = await propose(t, did, compliance.key)
    expect(again.statusCode).toBe(409)
    expect(again.json().code).toBe('DOMAIN_STATE_CONFLICT')
  })

  it('does not pass below the threshold, and rejects when the period ends', async () => {
    const { did, proposal } = await openProposal()
    for (const [i, choice] of ['yes', 'no', 'no', 'yes', 'abstain'].entries()) {
      expect((await vote(t, proposal.id, voters[i]!.key, choice)).statusCode).toBe(201)
    }
    expect(await getProposal(proposal.id)).toMatchObject({
      status: 'open',
      tally: { yes: 2, no: 2, abstain: 1, total: 5 }
    })
    t.clock.advance(HOUR)
    const settled = await getProposal(proposal.id)
    expect(settled).toMatchObject({ status: 'rejected', closedAt: proposal.deadline })
    expect(settled.outcomeReason).toContain('voting period ended without passing')
    expect(await getDomain(did)).toMatchObject({ status: 'rejected', verified: false, usable: false })
    const last = (await history(did)).at(-1)
    expect(last).toMatchObject({
      event: 'rejected',
      fromStatus: 'verification_submitted',
      toStatus: 'rejected',
      actor: { kind: 'governance' },
      at: proposal.deadline
    })
    const late = await vote(t, proposal.id, voters[6]!.key, 'yes')
    expect(late.statusCode).toBe(409)
  })

  it('rejects when the quorum is never reached, then accepts a new proposal', async () => {
    const { did, proposal } = await openProposal()
    await vote(t, proposal.id, voters[0]!.key, 'yes')
    await vote(t, proposal.id, voters[1]!.key, 'yes')
    t.clock.advance(HOUR + 1)
    expect(await getDomain(did)).toMatchObject({
      status: 'rejected',
      verification: { proposalId: proposal.id, status: 'rejected' }
    })
    const retry = await propose(t, did, compliance.key, withCouncil(voters.slice(0, 3)))
    expect(retry.statusCode).toBe(201)
    for (const v of voters.slice(0, 3)) await vote(t, retry.json().id, v.key, 'yes')
    expect(await getDomain(did)).toMatchObject({ status: 'verified', usable: true })
  })

  it('counts abstentions towards the quorum but not the threshold', async () => {
    const { did, proposal } = await openProposal({}, voters.slice(0, 3))
    await vote(t, proposal.id, voters[0]!.key, 'abstain')
    await vote(t, proposal.id, voters[1]!.key, 'abstain')
    expect((await vote(t, proposal.id, voters[2]!.key, 'yes')).json().status).toBe('passed')
    expect((await getDomain(did)).status).toBe('verified')
  })

  it('settles ended periods in listings too', async () => {
    const { did } = await openProposal()
    t.clock.advance(HOUR)
    const res = await t.app.inject({
      method: 'GET',
      url: `/v1/domains?status=rejected&controller=${registrar.account}&limit=100`,
      headers: t.auth(registrar.key)
    })
    expect(res.json().items.map((d: { did: string }) => d.did)).toContain(did)
  })

  it('expires a verified domain when validUntil passes', async () => {
    const { did, proposal } = await openProposal({ validUntil: t.clock.at(3 * HOUR) }, voters.slice(0, 3))
    for (const v of voters.slice(0, 3)) await vote(t, proposal.id, v.key, 'yes')
    expect(await getDomain(did)).toMatchObject({ status: 'verified', usable: true })
    t.clock.advance(3 * HOUR)
    expect(await getDomain(did)).toMatchObject({ status: 'expired', verified: true, usable: false })
    const last = (await history(did)).at(-1)
    expect(last).toMatchObject({
      event: 'expired',
      fromStatus: 'verified',
      toStatus: 'expired',
      actor: { kind: 'system' }
    })
    expect((await propose(t, did, compliance.key)).statusCode).toBe(409)
    const frozen = await t.app.inject({
      method: 'GET',
      url: `/v1/domains?status=expired&controller=${registrar.account}&limit=100`,
      headers: t.auth(registrar.key)
    })
    expect(frozen.json().items.map((d: { did: string }) => d.did)).toContain(did)
  })

  it('cancels the open proposal of a domain that expires during the vote', async () => {
    const { did, proposal } = await openProposal({ validUntil: t.clock.at(HOUR / 2) })
    await vote(t, proposal.id, voters[0]!.key, 'yes')
    t.clock.advance(HOUR / 2)
    expect(await getProposal(proposal.id)).toMatchObject({ status: 'cancelled' })
    expect((await getDomain(did)).status).toBe('expired')
    expect((await vote(t, proposal.id, voters[1]!.key, 'yes')).statusCode).toBe(409)
  })

  it('renews an expired domain to draft when a controller sets a new validUntil', async () => {
    const domain = await t.createDomain(registrar.key, { validUntil: t.clock.at(HOUR) })
    t.clock.advance(HOUR)
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/v1/domains/${domain.did}`,
      headers: t.auth(registrar.key),
      payload: { validUntil: t.clock.at(HOUR) }
    })
    expect(res.statusCode).toBe(200)
    expect(res.json().status).toBe('draft')
    expect((await history(domain.did)).map((e) => e.event)).toEqual(['created', 'expired', 'renewed'])
  })

  it('is not usable before validFrom even when verified', async () => {
    const { did, proposal } = await openProposal({ validFrom: t.clock.at(2 * HOUR) }, voters.slice(0, 3))
    for (const v of voters.slice(0, 3)) await vote(t, proposal.id, v.key, 'yes')
    expect(await getDomain(did)).toMatchObject({ status: 'verified', usable: false })
    t.clock.advance(2 * HOUR)
    expect(await getDomain(did)).toMatchObject({ status: 'verified', usable: true })
  })

  it('answers 409 to the same vote again by the same key, and counts a changed vote once', async () => {
    const { proposal } = await openProposal()
    expect((await vote(t, proposal.id, voters[0]!.key, 'yes')).statusCode).toBe(201)
    const second = await vote(t, proposal.id, voters[0]!.key, 'yes')
    expect(second.statusCode).toBe(409)
    expect(second.json()).toMatchObject({ statusCode: 409, error: 'Conflict', code: 'DOMAIN_ALREADY_VOTED' })
    expect((await getProposal(proposal.id)).tally).toEqual({ yes: 1, no: 0, abstain: 0, veto: 0, total: 1 })
    expect((await vote(t, proposal.id, voters[0]!.key, 'no')).statusCode).toBe(201)
    expect((await getProposal(proposal.id)).tally).toEqual({ yes: 0, no: 1, abstain: 0, veto: 0, total: 1 })
  })

  it('passes exactly once under concurrent votes, as soon as the rest cannot change it', async () => {
    // 12 voters, threshold 0.6: the 8th yes decides it (8/12 ≥ 0.6 whatever the other 4 vote; 7/12 is not).
    const { did, proposal } = await openProposal({}, voters)
    const results = await Promise.all(voters.map(async (v) => await vote(t, proposal.id, v.key, 'yes')))
    const accepted = results.filter((r) => r.statusCode === 201)
    expect(accepted).toHaveLength(8)
    expect(results.filter((r) => r.statusCode === 409).every((r) => r.json().code === 'DOMAIN_PROPOSAL_CLOSED')).toBe(
      true
    )
    expect(await getProposal(proposal.id)).toMatchObject({
      status: 'passed',
      tally: { yes: 8, no: 0, abstain: 0, veto: 0, total: 8 }
    })
    expect((await history(did)).filter((e) => e.event === 'verified')).toHaveLength(1)
  })

  it('enforces roles: only compliance proposes, only voters vote', async () => {
    const domain = await t.createDomain(registrar.key)
    const byRegistrar = await propose(t, domain.did, registrar.key)
    expect(byRegistrar.statusCode).toBe(403)
    expect(byRegistrar.json().code).toBe('DOMAIN_FORBIDDEN')
    const { proposal } = await openProposal()
    const byCompliance = await vote(t, proposal.id, compliance.key, 'yes')
    expect(byCompliance.statusCode).toBe(403)
  })

  it('validates proposals and votes', async () => {
    const domain = await t.createDomain(registrar.key)
    expect((await propose(t, domain.did, compliance.key, {})).statusCode).toBe(400)
    expect((await propose(t, domain.did, compliance.key, { evidence: 'not a uri' })).statusCode).toBe(400)
    expect((await propose(t, 'did:ixo:entity:00000000000000000000000000000000', compliance.key)).statusCode).toBe(404)
    const { proposal } = await openProposal()
    expect((await vote(t, proposal.id, voters[0]!.key, 'maybe')).statusCode).toBe(400)
    expect((await vote(t, proposal.id, voters[0]!.key, 'yes', 'x'.repeat(1001))).statusCode).toBe(400)
    expect((await vote(t, proposal.id, voters[0]!.key, 'yes', '')).statusCode).toBe(400)
    const unknown = await vote(t, '00000000-0000-4000-8000-000000000000', voters[0]!.key, 'yes')
    expect(unknown.statusCode).toBe(404)
    expect(unknown.json().code).toBe('DOMAIN_PROPOSAL_NOT_FOUND')
    const other = await t.createDomain(registrar.key)
    const council = async (members: unknown) =>
      await propose(t, other.did, compliance.key, { ...PROPOSAL, council: members })
    expect((await council([])).statusCode).toBe(400)
    expect((await council(['not a did'])).statusCode).toBe(400)
    expect((await council([voters[0]!.account, voters[0]!.account])).statusCode).toBe(400)
  })

  it('refuses a second open proposal and cancels the open one on deactivation', async () => {
    const { did, proposal } = await openProposal()
    expect((await propose(t, did, compliance.key)).statusCode).toBe(409)
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/domains/${did}/deactivate`,
      headers: t.auth(registrar.key)
    })
    expect(res.statusCode).toBe(200)
    expect(await getProposal(proposal.id)).toMatchObject({
      status: 'cancelled',
      outcomeReason: 'the domain was deactivated'
    })
    expect((await vote(t, proposal.id, voters[0]!.key, 'yes')).statusCode).toBe(409)
  })
})
