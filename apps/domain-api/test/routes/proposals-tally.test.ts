import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createProposal, vote } from '../governance.ts'
import { startApp, type TestApp } from '../helper.ts'

let t: TestApp
let owner: { key: string }
let electorate: Array<{ id: string, key: string }>

beforeAll(async () => {
  // A quorum nobody reaches keeps the proposal open, so every vote must land in the tally.
  t = await startApp({ VERIFICATION_QUORUM: '1000' })
  owner = await t.issueKey(['registrar', 'compliance'])
  electorate = await Promise.all(Array.from({ length: 30 }, async () => await t.issueKey(['voter'])))
})
afterAll(async () => { await t?.close() })

describe('POST /v1/verification-proposals/:id/votes under concurrency', () => {
  it('tallies concurrent votes exactly and refuses every duplicate', async () => {
    const domain = await t.createDomain(owner.key)
    const { id } = await createProposal(t, domain.did, owner.key)
    const choices = electorate.map((_, i) => (['yes', 'no', 'abstain'] as const)[i % 3])
    const cast = async (v: { key: string }, i: number) => await vote(t, id, v.key, choices[i])
    const results = await Promise.all(electorate.flatMap((v, i) => [cast(v, i), cast(v, i)]))
    expect(results.filter((r) => r.statusCode === 201)).toHaveLength(30)
    const refused = results.filter((r) => r.statusCode === 409)
    expect(refused).toHaveLength(30)
    expect(refused.every((r) => r.json().code === 'DOMAIN_ALREADY_VOTED')).toBe(true)
    const proposal = (
      await t.app.inject({ method: 'GET', url: `/v1/verification-proposals/${id}`, headers: t.auth(owner.key) })
    ).json()
    expect(proposal).toMatchObject({ status: 'open', tally: { yes: 10, no: 10, abstain: 10, total: 30 } })
    expect(new Set(proposal.votes.map((v: { keyId: string }) => v.keyId))).toEqual(new Set(electorate.map((v) => v.id)))
  })
})
