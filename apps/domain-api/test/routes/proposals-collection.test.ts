import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import {
  castVote, createProposal, issueGovernance, PROPOSAL, propose, withCouncil, type Governance
} from '../governance.ts'
import { startApp, type TestApp } from '../helper.ts'
import { startProgramme, stoveOf, type Programme } from '../programme.ts'

const HOUR = 3_600_000
// A thousand devices registered, proposed and verified in one test, on a shared machine.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 })

let t: TestApp
let keys: Governance
let programme: Programme

beforeAll(async () => {
  t = await startApp()
  keys = await issueGovernance(t)
  programme = await startProgramme(t, keys)
})
afterAll(async () => { await t?.close() })

const read = async (url: string) => {
  const res = await t.app.inject({ method: 'GET', url, headers: t.auth(keys.registrar.key) })
  if (res.statusCode !== 200) throw new Error(`GET ${url}: ${res.body}`)
  return res.json()
}
const collection = (payload: object = {}) => withCouncil(keys.voters, { ...PROPOSAL, kind: 'collection', ...payload })
const patch = async (did: string, payload: object) =>
  await t.app.inject({ method: 'PATCH', url: `/v1/domains/${did}`, headers: t.auth(keys.registrar.key), payload })

/** Every item of a cursor-paged listing, 100 at a time. */
async function all (url: string): Promise<Array<Record<string, any>>> {
  const items: Array<Record<string, any>> = []
  let cursor: string | null = null
  do {
    const next = cursor !== null ? `&cursor=${cursor}` : ''
    const page = await read(`${url}${url.includes('?') ? '&' : '?'}limit=100${next}`)
    items.push(...page.items)
    cursor = page.nextCursor
  } while (cursor !== null)
  return items
}

/** A new project of the programme with `n` stoves registered in one batch; the project's and the stoves' DIDs. */
async function projectWithStoves (n: number, prefix: string) {
  const project = (await t.createDomain(keys.registrar.key, {
    type: 'Project', class: programme.protocol, links: { organisation: programme.organisation }
  })).did
  const items = Array.from({ length: n }, (_, i) =>
    stoveOf({ ...programme, project }, `${prefix}-${String(i).padStart(4, '0')}`))
  const res = await t.app.inject({
    method: 'POST', url: '/v1/domains/batch', headers: t.auth(keys.registrar.key), payload: { items }
  })
  expect(res.json()).toMatchObject({ created: n, failed: 0 })
  return { project, stoves: (res.json().items as Array<{ did: string }>).map((item) => item.did) }
}

describe('a collection proposal', () => {
  it('verifies a 1,000-device batch in one vote, each device with its own snapshot hash', async () => {
    const { project, stoves } = await projectWithStoves(1000, 'COL')
    const proposal = await createProposal(t, project, keys.compliance.key, collection())
    expect(proposal).toMatchObject({ kind: 'collection', domainDid: project, memberCount: 1000, snapshot: null })

    const members = await all(`/v1/verification-proposals/${proposal.id}/members`)
    expect(members.map((m) => m.did)).toEqual([...stoves].sort())
    expect(new Set(members.map((m) => m.hash)).size).toBe(1000)
    // The collection's hash is of its [did, hash] pairs in DID order: a voter can recompute it from the listing.
    const pairs = JSON.stringify(members.map((m) => [m.did, m.hash]))
    expect(proposal.snapshotHash).toBe(`sha256:${createHash('sha256').update(pairs).digest('hex')}`)
    const one = await read(`/v1/domains/${stoves[7]}`)
    expect(one).toMatchObject({
      status: 'verification_submitted', usable: false, verification: { proposalId: proposal.id, kind: 'collection' }
    })
    expect(members.find((m) => m.did === stoves[7])!.hash).toBe(one.contentHash)

    await castVote(t, proposal.id, keys.voters[0]!.key)
    await castVote(t, proposal.id, keys.voters[1]!.key)
    const passed = await castVote(t, proposal.id, keys.voters[2]!.key)
    expect(passed).toMatchObject({ status: 'passed', tally: { yes: 3, total: 3 } })

    const usable = await all(`/v1/domains?project=${project}&usable=true`)
    expect(usable).toHaveLength(1000)
    const hashOf = new Map(members.map((m) => [m.did, m.hash]))
    for (const domain of usable) {
      expect(domain).toMatchObject({ status: 'verified', verified: true, verifiedHash: hashOf.get(domain.did) })
      expect(domain.contentHash).toBe(domain.verifiedHash)
    }
    const history = await t.history(stoves[7]!, keys.registrar.key)
    expect(history.map((e) => [e.event, e.proposalId])).toEqual([
      ['created', null], ['verification_proposed', proposal.id], ['verified', proposal.id]
    ])
    expect(history[2]).toMatchObject({
      actor: { kind: 'governance' },
      details: { kind: 'collection', outcome: 'passed', snapshotHash: one.contentHash }
    })
    const ofStove = await read(`/v1/domains/${stoves[7]}/verification-proposals`)
    expect(ofStove.items.map((p: { id: string }) => p.id)).toEqual([proposal.id])
  })

  it('loses a member whose content changes, or that is deactivated, and verifies the rest', async () => {
    const { project, stoves } = await projectWithStoves(4, 'WDR')
    const [edited, deactivated, kept] = stoves
    const { id } = await createProposal(t, project, keys.compliance.key, collection())
    const res = await patch(edited!, { metadata: { name: 'Stove moved to another kitchen' } })
    expect(res.json()).toMatchObject({ status: 'draft', verification: null })
    await t.app.inject({
      method: 'POST', url: `/v1/domains/${deactivated}/deactivate`, headers: t.auth(keys.registrar.key)
    })
    expect((await read(`/v1/verification-proposals/${id}`)).status).toBe('open')
    const members = await all(`/v1/verification-proposals/${id}/members`)
    const withdrawn = members.filter((m) => m.withdrawnAt !== null).map((m) => [m.did, m.withdrawnReason])
    expect(withdrawn.sort()).toEqual([
      [deactivated, 'the domain was deactivated'],
      [edited, expect.stringContaining('the reviewed content changed while it was open')]
    ].sort())
    expect((await t.history(edited!, keys.registrar.key)).slice(-2).map((e) => [e.event, e.proposalId]))
      .toEqual([['updated', id], ['proposal_superseded', id]])

    for (const voter of keys.voters) await castVote(t, id, voter.key)
    expect(await read(`/v1/domains/${kept}`)).toMatchObject({ status: 'verified', usable: true })
    expect(await read(`/v1/domains/${edited}`)).toMatchObject({ status: 'draft', verified: false })
    expect(await read(`/v1/domains/${deactivated}`)).toMatchObject({ status: 'deactivated', verified: false })
    // The edited stove is verified on its own later, from its new content.
    expect((await createProposal(t, edited!, keys.compliance.key, withCouncil(keys.voters))).kind).toBe('verify')
  })

  it('settles at its deadline when a member is read, and leaves a member that expires first', async () => {
    const members = [...keys.voters, ...await Promise.all([1, 2].map(async () => await t.issueKey(['voter'])))]
    const { project, stoves } = await projectWithStoves(3, 'DDL')
    const expiring = (await t.createDomain(keys.registrar.key, {
      ...stoveOf({ ...programme, project }, 'DDL-short'), validUntil: t.clock.at(HOUR / 2)
    })).did
    const { id } = await createProposal(t, project, keys.compliance.key,
      withCouncil(members, { ...PROPOSAL, kind: 'collection' }))
    expect((await read(`/v1/verification-proposals/${id}`)).memberCount).toBe(4)
    // Two yes and an abstention of five: passing at the deadline, not before.
    for (const [i, choice] of ['yes', 'yes', 'abstain'].entries()) await castVote(t, id, members[i]!.key, choice)
    t.clock.advance(HOUR)
    expect(await read(`/v1/domains/${stoves[0]}`)).toMatchObject({
      status: 'verified', verification: { proposalId: id, status: 'passed' }
    })
    expect(await read(`/v1/verification-proposals/${id}`)).toMatchObject({
      status: 'passed', closedAt: t.clock.at(0)
    })
    expect(await read(`/v1/domains/${expiring}`)).toMatchObject({ status: 'expired', verified: false })
    const left = (await all(`/v1/verification-proposals/${id}/members`)).find((m) => m.did === expiring)
    expect(left).toMatchObject({ withdrawnReason: 'the domain expired' })
    const usable = await all(`/v1/domains?project=${project}&usable=true`)
    expect(usable.map((d) => d.did).sort()).toEqual([...stoves].sort())
  })

  it('stays consistent when members are edited while the deciding votes close it', async () => {
    const { project, stoves } = await projectWithStoves(40, 'RACE')
    // Proposed twice at once: one collection takes the stoves, the other finds nothing left.
    const [first, second] = await Promise.all([1, 2].map(async () =>
      await propose(t, project, keys.compliance.key, collection())))
    expect([first!.statusCode, second!.statusCode].sort()).toEqual([201, 409])
    const { id } = (first!.statusCode === 201 ? first! : second!).json()
    await castVote(t, id, keys.voters[0]!.key)
    const edited = stoves.slice(0, 10)
    const answers = await Promise.all([
      ...keys.voters.slice(1).map(async (voter) => await t.app.inject({
        method: 'POST',
        url: `/v1/verification-proposals/${id}/votes`,
        headers: t.auth(voter.key),
        payload: { vote: 'yes' }
      })),
      ...edited.map(async (did) => await patch(did, { metadata: { name: `edited ${did}` } })),
      ...stoves.slice(10, 20).map(async (did) => await t.app.inject({
        method: 'GET', url: `/v1/domains/${did}`, headers: t.auth(keys.registrar.key)
      }))
    ])
    expect(answers.map((r) => r.statusCode).filter((code) => code >= 300)).toEqual([])
    expect((await read(`/v1/verification-proposals/${id}`)).status).toBe('passed')
    const members = new Map((await all(`/v1/verification-proposals/${id}/members`)).map((m) => [m.did, m]))
    for (const did of stoves) {
      const domain = await read(`/v1/domains/${did}`)
      const left = members.get(did)!.withdrawnAt !== null
      if (!edited.includes(did)) expect([domain.status, left]).toEqual(['verified', false])
      // Edited before the closing: it left the collection; after: verified, then changed.
      else expect([domain.status, left]).toEqual(left ? ['draft', true] : ['changed', false])
    }
  })

  it('is refused when the project has nothing to verify, and keeps members\' controllers out of its council',
    async () => {
      const { project, stoves } = await projectWithStoves(2, 'REF')
      const staked = await t.issueKey(['voter'])
      await patch(stoves[0]!, { controllers: [keys.registrar.account, staked.account] })
      const council = await propose(t, project, keys.compliance.key, withCouncil([...keys.voters, staked],
        { ...PROPOSAL, kind: 'collection' }))
      expect(council.statusCode).toBe(422)
      expect(council.json().code).toBe('DOMAIN_COUNCIL_INVALID')
      expect(council.json().message).toContain(staked.account)

      const { id } = await createProposal(t, project, keys.compliance.key, collection())
      for (const voter of keys.voters) await castVote(t, id, voter.key)
      const nothing = await propose(t, project, keys.compliance.key, collection())
      expect(nothing.statusCode).toBe(409)
      expect(nothing.json()).toMatchObject({ code: 'DOMAIN_STATE_CONFLICT' })
      expect(nothing.json().message).toContain('has no domains to verify')
      const dated = await propose(t, project, keys.compliance.key, collection({ validUntil: t.clock.at(HOUR) }))
      expect(dated.statusCode).toBe(400)
      const badCursor = await t.app.inject({
        method: 'GET', url: `/v1/verification-proposals/${id}/members?cursor=abc`, headers: t.auth(keys.registrar.key)
      })
      expect(badCursor.json()).toMatchObject({ statusCode: 400, code: 'DOMAIN_INVALID_CURSOR' })
    })
})
