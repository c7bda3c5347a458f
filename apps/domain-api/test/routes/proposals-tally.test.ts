import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createProposal, vote, withCouncil } from '../governance.ts'
import { startApp, type TestApp } from '../helper.ts'

let t: TestApp
let owner: { key: string }
let electorate: Array<{ id: string, key: string, account: string }>

beforeAll(async () => {
  // Every member must vote before it can pass (100%), and at 0.5 an even split of yes and no passes: the
  // outcome stays open until the last member's vote, so every vote must land in the tally.
  t = await startApp({ VERIFICATION_QUORUM: '100%', VERIFICATION_THRESHOLD: '0.5' })
  owner = await t.issueKey(['registrar', 'compliance'])
  electorate = await Promise.all(Array.from({ length: 30 }, async () => await t.issueKey(['voter'])))
})
afterAll(async () => { await t?.close() })

const getProposal = async (id: string) =>
  (await t.app.inject({ method: 'GET', url: `/v1/verification-proposals/${id}`, headers: t.auth(owner.key) })).json()

describe('POST /v1/verification-proposals/:id/votes under concurrency', () => {
  it('tallies concurrent votes of many accounts exactly and refuses every duplicate', async () => {
    const domain = await t.createDomain(owner.key)
    const { id } = await createProposal(t, domain.did, owner.key, withCouncil(electorate))
    const choices = electorate.map((_, i) => (['yes', 'no', 'abstain'] as const)[i % 3])
    const cast = async (v: { key: string }, i: number) => await vote(t, id, v.key, choices[i])
    const results = await Promise.all(electorate.flatMap((v, i) => [cast(v, i), cast(v, i)]))
    expect(results.filter((r) => r.statusCode === 201)).toHaveLength(30)
    const refused = results.filter((r) => r.statusCode === 409)
    expect(refused).toHaveLength(30)
    // A duplicate that lands after the last member's vote finds the proposal closed.
    expect(refused.every((r) => ['DOMAIN_ALREADY_VOTED', 'DOMAIN_PROPOSAL_CLOSED'].includes(r.json().code))).toBe(true)
    const proposal = await getProposal(id)
    expect(proposal).toMatchObject({
      status: 'passed',
      quorum: 30,
      quorumRule: '100%',
      tally: { yes: 10, no: 10, abstain: 10, veto: 0, total: 30 }
    })
    expect(new Set(proposal.votes.map((v: { keyId: string }) => v.keyId))).toEqual(new Set(electorate.map((v) => v.id)))
  })

  it('counts an account with three keys once, whichever keys vote and in whatever order', async () => {
    const [member, ...others] = electorate
    const keys = [member!, await t.issueKey(['voter'], member!.account), await t.issueKey(['voter'], member!.account)]
    const domain = await t.createDomain(owner.key)
    const { id } = await createProposal(t, domain.did, owner.key, withCouncil(electorate))

    const same = await Promise.all(keys.map(async (k) => await vote(t, id, k.key, 'yes')))
    expect(same.map((r) => r.statusCode).sort()).toEqual([201, 409, 409])
    expect(same.filter((r) => r.statusCode === 409).every((r) => r.json().code === 'DOMAIN_ALREADY_VOTED')).toBe(true)
    expect((await getProposal(id)).tally).toEqual({ yes: 1, no: 0, abstain: 0, veto: 0, total: 1 })

    // Three different choices at once: each is a change of the account's one vote, applied one after another.
    const mixed = await Promise.all(keys.map(async (k, i) => await vote(t, id, k.key, ['no', 'abstain', 'yes'][i])))
    const accepted = mixed.filter((r) => r.statusCode === 201).length
    expect(accepted).toBeGreaterThanOrEqual(2)
    const proposal = await getProposal(id)
    expect(proposal.tally.total).toBe(1)
    expect(proposal.tally.yes + proposal.tally.no + proposal.tally.abstain).toBe(1)
    const ballots = proposal.votes.filter((v: { account: string }) => v.account === member!.account)
    expect(ballots).toHaveLength(1 + accepted)
    expect(ballots.filter((v: { supersededAt: string | null }) => v.supersededAt === null)).toHaveLength(1)
    expect(ballots.at(-1).vote).toBe(Object.keys(proposal.tally).find((k) => proposal.tally[k] === 1))

    await Promise.all(others.map(async (v) => await vote(t, id, v.key, 'yes')))
    expect(await getProposal(id)).toMatchObject({ status: 'passed', tally: { total: 30 } })
  })
})
