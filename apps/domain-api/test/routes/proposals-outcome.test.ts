import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { until } from '@impact/service-kit/testing'
import { castVote, createProposal, vote, withCouncil } from '../governance.ts'
import { startApp, type TestApp } from '../helper.ts'

const HOUR = 3_600_000
type Key = { id: string, key: string, account: string }
let t: TestApp
let registrar: Key
let compliance: Key
let voters: Key[]
let vetoer: Key

beforeAll(async () => {
  t = await startApp()
  registrar = await t.issueKey(['registrar'])
  compliance = await t.issueKey(['compliance'])
  voters = await Promise.all(Array.from({ length: 5 }, async () => await t.issueKey(['voter'])))
  vetoer = await t.issueKey(['vetoer'])
})
afterAll(async () => { await t?.close() })

const getProposal = async (id: string) =>
  (await t.app.inject({ method: 'GET', url: `/v1/verification-proposals/${id}`, headers: t.auth(registrar.key) }))
    .json()
const getDomain = async (did: string) =>
  (await t.app.inject({ method: 'GET', url: `/v1/domains/${did}`, headers: t.auth(registrar.key) })).json()

/** A domain under review by the five voters (quorum 3, threshold 0.6). */
async function underReview () {
  const domain = await t.createDomain(registrar.key)
  const proposal = await createProposal(t, domain.did, compliance.key, withCouncil(voters))
  return { did: domain.did, id: proposal.id }
}
const castAll = async (id: string, choices: string[]) => {
  let last: Record<string, any> = {}
  for (const [i, choice] of choices.entries()) last = await castVote(t, id, voters[i]!.key, choice)
  return last
}

describe('when a proposal closes', () => {
  it('passes early only once the remaining members cannot stop it', async () => {
    const { did, id } = await underReview()
    expect((await castAll(id, ['yes', 'yes'])).status).toBe('open')
    // 3 of 5 yes: even two more no leave 3/5 = 0.6.
    const passed = await castVote(t, id, voters[2]!.key, 'yes')
    expect(passed).toMatchObject({ status: 'passed', tally: { yes: 3, total: 3 } })
    expect(passed.outcomeReason).toContain('the 2 who have not voted cannot change it')
    expect(await getDomain(did)).toMatchObject({ status: 'verified', usable: true })
    const late = await vote(t, id, voters[3]!.key, 'no')
    expect(late.statusCode).toBe(409)
    expect(late.json().code).toBe('DOMAIN_PROPOSAL_CLOSED')
  })

  it('stays open while the outcome can change, however many votes are cast', async () => {
    const { id } = await underReview()
    // 2 yes, 1 no, 1 abstain: quorum reached and yes ahead, but a last no makes it 2/4 = 0.5.
    expect(await castAll(id, ['yes', 'no', 'abstain', 'yes'])).toMatchObject({ status: 'open', tally: { total: 4 } })
  })

  it('rejects early once the remaining members cannot make it pass', async () => {
    const { did, id } = await underReview()
    expect((await castAll(id, ['no', 'no'])).status).toBe('open')
    // 3 no: even two more yes give 2/5 = 0.4.
    const rejected = await castVote(t, id, voters[2]!.key, 'no')
    expect(rejected).toMatchObject({ status: 'rejected', tally: { no: 3, total: 3 } })
    expect(rejected.outcomeReason).toContain('cannot pass whatever the 2 who have not voted choose')
    expect(await getDomain(did)).toMatchObject({ status: 'rejected', verified: false })
    const last = (await t.history(did, registrar.key)).at(-1)
    expect(last).toMatchObject({
      event: 'rejected',
      actor: { kind: 'governance' },
      proposalId: id,
      details: { outcome: 'rejected', tally: { yes: 0, no: 3, abstain: 0, veto: 0 } }
    })
  })

  it('settles at the deadline: passed when the votes then pass, with abstentions counted for the quorum', async () => {
    const { did, id } = await underReview()
    const proposal = await castAll(id, ['yes', 'abstain', 'abstain'])
    expect(proposal.status).toBe('open')
    t.clock.advance(HOUR)
    expect(await getDomain(did)).toMatchObject({ status: 'verified', verified: true, verifiedAt: proposal.deadline })
    expect(await getProposal(id)).toMatchObject({ status: 'passed', closedAt: proposal.deadline })
    expect((await t.history(did, registrar.key)).at(-1)).toMatchObject({
      event: 'verified', actor: { kind: 'governance' }, at: proposal.deadline
    })
  })

  it('settles at the deadline: rejected below the quorum', async () => {
    const { did, id } = await underReview()
    await castAll(id, ['yes', 'yes'])
    t.clock.advance(HOUR)
    expect(await getProposal(id)).toMatchObject({ status: 'rejected' })
    expect((await getDomain(did)).status).toBe('rejected')
  })
})

describe('veto', () => {
  it('lets a vetoer reject at once, with its rationale on record', async () => {
    const { did, id } = await underReview()
    expect((await getProposal(id)).electorate).toEqual({ source: 'council', size: 5, vetoers: 1 })
    await castAll(id, ['yes', 'yes'])
    const vetoed = await castVote(t, id, vetoer.key, 'veto')
    expect(vetoed).toMatchObject({ status: 'vetoed', tally: { yes: 2, veto: 1, total: 2 } })
    expect(vetoed.outcomeReason).toBe(`vetoed by ${vetoer.account}`)
    expect(await getDomain(did)).toMatchObject({
      status: 'rejected', verified: false, verification: { proposalId: id, status: 'vetoed' }
    })
    expect((await t.history(did, registrar.key)).at(-1)).toMatchObject({
      event: 'rejected',
      details: { outcome: 'vetoed', decidingVote: { account: vetoer.account, vote: 'veto' } }
    })
  })

  it('is for vetoers only, who cannot vote otherwise unless they are also voters', async () => {
    const { id } = await underReview()
    const byVoter = await vote(t, id, voters[0]!.key, 'veto')
    expect(byVoter.statusCode).toBe(403)
    expect(byVoter.json().code).toBe('DOMAIN_NOT_IN_ELECTORATE')
    expect(byVoter.json().message).toContain('vetoer role')
    const yesByVetoer = await vote(t, id, vetoer.key, 'yes')
    expect(yesByVetoer.statusCode).toBe(403)
    expect(yesByVetoer.json().code).toBe('DOMAIN_NOT_IN_ELECTORATE')
    const lateVetoer = await t.issueKey(['vetoer'])
    expect((await vote(t, id, lateVetoer.key, 'veto')).statusCode).toBe(403)
    expect((await getProposal(id)).status).toBe('open')
  })
})

describe('changing a vote', () => {
  it('replaces the account\'s vote while open, keeps every ballot and rationale, and feeds the change', async () => {
    const { id } = await underReview()
    await castVote(t, id, voters[0]!.key, 'yes')
    const first = await vote(t, id, voters[1]!.key, 'no', 'site photos missing')
    expect(first.statusCode).toBe(201)
    const changed = await vote(t, id, voters[1]!.key, 'yes', 'photos received')
    expect(changed.json()).toMatchObject({ status: 'open', tally: { yes: 2, no: 0, total: 2 } })
    expect(changed.json().votes.map((v: Record<string, unknown>) => [v.account, v.vote, v.rationale,
      v.supersededAt === null])).toEqual([
      [voters[0]!.account, 'yes', null, true],
      [voters[1]!.account, 'no', 'site photos missing', false],
      [voters[1]!.account, 'yes', 'photos received', true]
    ])
    const readFeed = async () => (await t.app.inject({
      method: 'GET', url: '/v1/events?types=vote_cast,vote_changed&limit=500', headers: t.auth(registrar.key)
    })).json().items.filter((e: { proposalId: string }) => e.proposalId === id)
    // The feed shows a write once no older transaction is in flight (on a shared server, any database's).
    await until(async () => (await readFeed()).length === 3)
    const feed = await readFeed()
    expect(feed.map((e: Record<string, any>) => [e.event, e.actor.account, e.details.vote, e.details.previous]))
      .toEqual([
        ['vote_cast', voters[0]!.account, 'yes', undefined],
        ['vote_cast', voters[1]!.account, 'no', undefined],
        ['vote_changed', voters[1]!.account, 'yes', 'no']
      ])
    expect(feed[2].details).toMatchObject({ rationale: 'photos received', tally: { yes: 2, no: 0 } })
  })

  it('can decide the proposal, and is refused once it is closed', async () => {
    const { id } = await underReview()
    await castAll(id, ['yes', 'yes', 'no'])
    expect((await castVote(t, id, voters[2]!.key, 'yes')).status).toBe('passed')
    const after = await vote(t, id, voters[0]!.key, 'no')
    expect(after.statusCode).toBe(409)
    expect(after.json().code).toBe('DOMAIN_PROPOSAL_CLOSED')
  })
})

describe('a quorum given as a share of the electorate', () => {
  let pct: TestApp
  beforeAll(async () => { pct = await startApp({ VERIFICATION_QUORUM: '40%' }) })
  afterAll(async () => { await pct?.close() })

  it('is resolved against the electorate when the proposal opens, rounded up', async () => {
    const officer = await pct.issueKey(['registrar', 'compliance'])
    const members = await Promise.all(Array.from({ length: 6 }, async () => await pct.issueKey(['voter'])))
    const open = async (council: Key[]) =>
      await createProposal(pct, (await pct.createDomain(officer.key)).did, officer.key, withCouncil(council))
    expect(await open(members.slice(0, 5))).toMatchObject({ quorum: 2, quorumRule: '40%', electorate: { size: 5 } })
    expect(await open(members)).toMatchObject({ quorum: 3, quorumRule: '40%', electorate: { size: 6 } })

    const { id } = await open(members.slice(0, 5))
    await castVote(pct, id, members[0]!.key, 'yes')
    expect((await castVote(pct, id, members[1]!.key, 'yes')).status).toBe('open')
    pct.clock.advance(HOUR)
    expect((await pct.app.inject({
      method: 'GET', url: `/v1/verification-proposals/${id}`, headers: pct.auth(officer.key)
    })).json()).toMatchObject({ status: 'passed', quorum: 2, tally: { yes: 2, total: 2 } })
  })
})
