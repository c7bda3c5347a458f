import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { castVote, createProposal, propose, vote, withCouncil } from '../governance.ts'
import { randomAccount, startApp, type TestApp } from '../helper.ts'

let t: TestApp
let registrar: { id: string, key: string, account: string }
let compliance: { id: string, key: string, account: string }
let voters: Array<{ id: string, key: string, account: string }>

beforeAll(async () => {
  t = await startApp()
  registrar = await t.issueKey(['registrar'])
  compliance = await t.issueKey(['compliance'])
  voters = await Promise.all(Array.from({ length: 4 }, async () => await t.issueKey(['voter'])))
})
afterAll(async () => { await t?.close() })

const getProposal = async (id: string) =>
  (await t.app.inject({ method: 'GET', url: `/v1/verification-proposals/${id}`, headers: t.auth(registrar.key) }))
    .json()
const expectCode = (res: { statusCode: number, json: () => any }, status: number, code: string) => {
  expect(res.statusCode).toBe(status)
  expect(res.json().code).toBe(code)
}

describe('the electorate of a verification proposal', () => {
  it('is fixed when it opens: a voter granted the role later cannot vote on it, but can on the next', async () => {
    const domain = await t.createDomain(registrar.key)
    const before = await createProposal(t, domain.did, compliance.key)
    const electorate = (await getProposal(before.id)).eligible.voters as string[]
    expect(electorate).toEqual(expect.arrayContaining(voters.map((v) => v.account)))

    const late = await t.issueKey(['voter'])
    const refused = await vote(t, before.id, late.key)
    expectCode(refused, 403, 'DOMAIN_NOT_IN_ELECTORATE')
    expect(refused.json().message).toContain('did not hold the voter role when the proposal opened')
    expect((await getProposal(before.id)).tally.total).toBe(0)

    const next = await createProposal(t, (await t.createDomain(registrar.key)).did, compliance.key)
    expect((await getProposal(next.id)).eligible.voters).toContain(late.account)
    expect((await vote(t, next.id, late.key)).statusCode).toBe(201)
  })

  it('keeps its size when a role is revoked later, and the revoked account can no longer vote', async () => {
    const leaving = await t.issueKey(['voter'])
    const domain = await t.createDomain(registrar.key)
    const { id, electorate } = await createProposal(t, domain.did, compliance.key)
    await t.app.inject({
      method: 'PUT',
      url: `/v1/accounts/${leaving.account}/roles`,
      headers: t.auth(t.config.DOMAIN_API_ADMIN_KEY!),
      payload: { roles: [] }
    })
    expectCode(await vote(t, id, leaving.key), 403, 'DOMAIN_FORBIDDEN')
    expect((await getProposal(id)).electorate).toEqual(electorate)
  })

  it('leaves out the domain\'s controllers and the proposer even when they hold the voter role', async () => {
    const owner = await t.issueKey(['registrar', 'voter'])
    const officer = await t.issueKey(['compliance', 'voter'])
    const partner = await t.issueKey(['voter'])
    const domain = await t.createDomain(owner.key, { controllers: [partner.account] })
    const { id } = await createProposal(t, domain.did, officer.key)
    const { eligible, electorate } = await getProposal(id)
    expect(eligible.voters).not.toContain(owner.account)
    expect(eligible.voters).not.toContain(officer.account)
    expect(eligible.voters).not.toContain(partner.account)
    expect(electorate.size).toBe(eligible.voters.length)

    for (const [who, what] of [[owner, 'controls'], [partner, 'controls'], [officer, 'proposed']] as const) {
      const res = await vote(t, id, who.key)
      expectCode(res, 403, 'DOMAIN_VOTER_CONFLICT')
      expect(res.json().message).toContain(what)
    }
    expect((await getProposal(id)).tally.total).toBe(0)
  })

  it('lets no voter made a controller vote: the change supersedes the open proposal', async () => {
    const domain = await t.createDomain(registrar.key)
    const { id } = await createProposal(t, domain.did, compliance.key, withCouncil(voters.slice(0, 3)))
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/v1/domains/${domain.did}`,
      headers: t.auth(registrar.key),
      payload: { controllers: [registrar.account, voters[0]!.account] }
    })
    expect(patched.statusCode).toBe(200)
    expect(patched.json()).toMatchObject({ status: 'draft', verification: { proposalId: id, status: 'superseded' } })
    expectCode(await vote(t, id, voters[0]!.key), 409, 'DOMAIN_PROPOSAL_CLOSED')
    expectCode(await vote(t, id, voters[1]!.key), 409, 'DOMAIN_PROPOSAL_CLOSED')
  })

  it('may be a named council: only its members vote, each must hold the voter role and have no stake', async () => {
    const domain = await t.createDomain(registrar.key)
    const outsider = randomAccount()
    const lacking = await propose(t, domain.did, compliance.key, withCouncil([voters[0]!, { account: outsider }]))
    expectCode(lacking, 422, 'DOMAIN_COUNCIL_INVALID')
    expect(lacking.json().message).toContain(outsider)
    const staked = await propose(t, domain.did, compliance.key, withCouncil([voters[0]!, registrar]))
    expectCode(staked, 422, 'DOMAIN_COUNCIL_INVALID')
    const self = await propose(t, domain.did, compliance.key, withCouncil([voters[0]!, compliance]))
    expectCode(self, 422, 'DOMAIN_COUNCIL_INVALID')
    expect((await t.history(domain.did, registrar.key)).map((e) => e.event)).toEqual(['created'])

    const council = voters.slice(1, 4)
    const { id } = await createProposal(t, domain.did, compliance.key, withCouncil(council))
    expect(await getProposal(id)).toMatchObject({
      electorate: { source: 'council', size: 3 },
      eligible: { voters: council.map((v) => v.account).sort() }
    })
    const notMember = await vote(t, id, voters[0]!.key)
    expectCode(notMember, 403, 'DOMAIN_NOT_IN_ELECTORATE')
    expect(notMember.json().message).toContain('not on the council')
    for (const member of council) await castVote(t, id, member.key)
    expect((await getProposal(id)).status).toBe('passed')
  })

  it('must be able to reach the quorum, else the proposal is refused', async () => {
    const domain = await t.createDomain(registrar.key)
    const small = await propose(t, domain.did, compliance.key, withCouncil(voters.slice(0, 2)))
    expectCode(small, 409, 'DOMAIN_ELECTORATE_TOO_SMALL')
    expect(small.json().message).toContain('a council of 2')
    expect(small.json().message).toContain('quorum of 3')
    expect((await t.app.inject({
      method: 'GET', url: `/v1/domains/${domain.did}`, headers: t.auth(registrar.key)
    })).json().status).toBe('draft')
  })

  it('records the electorate in the proposal\'s history entry', async () => {
    const domain = await t.createDomain(registrar.key)
    const { id } = await createProposal(t, domain.did, compliance.key, withCouncil(voters))
    const proposed = (await t.history(domain.did, registrar.key)).find((e) => e.event === 'verification_proposed')
    expect(proposed).toMatchObject({
      proposalId: id,
      details: { quorum: 3, quorumRule: '3', threshold: 0.6, electorate: { source: 'council', size: 4, vetoers: 0 } }
    })
  })
})
