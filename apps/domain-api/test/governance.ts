import type { TestApp } from './helper.ts'

interface Keyed { key: string }
interface Member { key: string, account: string }

export const EVIDENCE = 'ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi'
export const PROPOSAL = { evidence: EVIDENCE, note: 'site visit done' }

/** Voters hold the role before any proposal that should count them opens: an electorate is fixed when it opens. */
export async function issueGovernance (t: TestApp, voters = 3) {
  const registrar = await t.issueKey(['registrar'])
  const compliance = await t.issueKey(['compliance'])
  return {
    registrar,
    compliance,
    voters: await Promise.all(Array.from({ length: voters }, async () => await t.issueKey(['voter'])))
  }
}

export type Governance = Awaited<ReturnType<typeof issueGovernance>>

/** The reply as sent, so a test can check a refusal too. */
export const propose = async (t: TestApp, did: string, key: string, payload: object = PROPOSAL) => await t.app.inject({
  method: 'POST', url: `/v1/domains/${did}/verification-proposals`, headers: t.auth(key), payload
})

export const vote = async (
  t: TestApp, id: string, as: string | Record<string, string>, choice = 'yes', rationale?: string
) =>
  await t.app.inject({
    method: 'POST',
    url: `/v1/verification-proposals/${id}/votes`,
    headers: typeof as === 'string' ? t.auth(as) : as,
    payload: { vote: choice, ...(rationale !== undefined ? { rationale } : {}) }
  })

/** The council alone votes, so the outcome does not hang on other voters. */
export const withCouncil = (members: Array<{ account: string }>, payload: object = PROPOSAL) =>
  ({ ...payload, council: members.map((m) => m.account) })

export async function createProposal (t: TestApp, did: string, key: string, payload: object = PROPOSAL) {
  const res = await propose(t, did, key, payload)
  if (res.statusCode !== 201) throw new Error(`proposing failed: ${res.body}`)
  return res.json() as { id: string, [key: string]: unknown }
}

export async function castVote (t: TestApp, id: string, key: string, choice = 'yes', rationale?: string) {
  const res = await vote(t, id, key, choice, rationale)
  if (res.statusCode !== 201) throw new Error(`voting failed: ${res.body}`)
  return res.json() as { status: string, [key: string]: unknown }
}

export async function voteThrough (t: TestApp, did: string, compliance: Keyed, voters: Member[]) {
  const { id } = await createProposal(t, did, compliance.key, withCouncil(voters))
  for (const voter of voters) await castVote(t, id, voter.key)
  return id
}

export async function verifiedDomain (t: TestApp, keys: { registrar: Keyed, compliance: Keyed, voters: Member[] }) {
  const domain = await t.createDomain(keys.registrar.key)
  const update = await t.app.inject({
    method: 'PATCH',
    url: `/v1/domains/${domain.did}`,
    headers: t.auth(keys.registrar.key),
    payload: { metadata: { name: 'Stoves II' } }
  })
  if (update.statusCode !== 200) throw new Error(`updating the domain failed: ${update.body}`)
  await voteThrough(t, domain.did, keys.compliance, keys.voters)
  return domain.did
}

/** What a class of this registry must be. */
export async function verifiedProtocol (t: TestApp, keys: { registrar: Keyed, compliance: Keyed, voters: Member[] }) {
  const { did } = await t.createDomain(keys.registrar.key, { type: 'Protocol', metadata: { name: 'Protocol' } })
  await voteThrough(t, did, keys.compliance, keys.voters)
  return did
}
