import { ClientError, GraphQLClient, gql } from 'graphql-request'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { castVote, createProposal, issueGovernance, type Governance } from '../governance.ts'
import { startApp, type TestApp } from '../helper.ts'

let t: TestApp
let url: string
let keys: Governance
/** Proposals opened by this file, newest first. */
const opened: string[] = []

vi.setConfig({ testTimeout: 30_000 })

beforeAll(async () => {
  t = await startApp()
  url = `${await t.app.listen({ host: '127.0.0.1', port: 0 })}/graphql`
  keys = await issueGovernance(t)
  for (let i = 0; i < 3; i++) {
    const domain = await t.createDomain(keys.registrar.key)
    opened.unshift((await createProposal(t, domain.did, keys.compliance.key)).id)
    t.clock.advance(1000)
  }
}, 60_000)
afterAll(async () => { await t?.close() })

const as = (key: string) => new GraphQLClient(url, { headers: t.auth(key) })

const PROPOSALS = gql`
  query Proposals($status: ProposalStatus, $voter: String, $voted: Boolean, $first: Int, $after: String) {
    verificationProposals(status: $status, voter: $voter, voted: $voted, first: $first, after: $after) {
      edges { cursor node { id status domainDid domain { did status } tally { yes total } votes { account vote } } }
      pageInfo { hasNextPage endCursor }
    }
  }
`
interface Page {
  verificationProposals: {
    edges: Array<{ cursor: string, node: Record<string, any> }>
    pageInfo: { hasNextPage: boolean, endCursor: string | null }
  }
}
const ids = (page: Page) => page.verificationProposals.edges.map((e) => e.node.id as string)

async function rest (key: string, query: string) {
  const res = await t.app.inject({ url: `/v1/verification-proposals?${query}`, headers: t.auth(key) })
  expect(res.statusCode).toBe(200)
  return res.json() as { items: Array<{ id: string }>, nextCursor: string | null }
}

/** The status and body of a query the service refused. */
async function refusal (variables: Record<string, unknown>) {
  const error = await as(keys.registrar.key).request(PROPOSALS, variables).then(() => undefined, (e: unknown) => e)
  expect(error).toBeInstanceOf(ClientError)
  const { response } = error as ClientError
  return { status: response.status, errors: response.errors ?? [] }
}

describe('verificationProposals', () => {
  it('lists the voter\'s to-do list as REST does, paged with cursors either interface issued', async () => {
    const voter = keys.voters[0]!
    const first = await as(voter.key).request<Page>(PROPOSALS, { status: 'open', voter: 'me', voted: false, first: 2 })
    expect(ids(first)).toEqual(opened.slice(0, 2))
    expect(first.verificationProposals.pageInfo.hasNextPage).toBe(true)
    const node = first.verificationProposals.edges[0]!.node
    expect(node).toMatchObject({ status: 'open', domain: { did: node.domainDid, status: 'verification_submitted' } })
    expect(node.votes).toEqual([])

    const restPage = await rest(voter.key, 'status=open&voter=me&voted=false&limit=2')
    expect(restPage.items.map((p) => p.id)).toEqual(ids(first))
    const after = first.verificationProposals.pageInfo.endCursor
    const rest2 = await as(voter.key).request<Page>(PROPOSALS, { voter: 'me', voted: false, after })
    const viaRestCursor = await as(voter.key).request<Page>(PROPOSALS,
      { voter: 'me', voted: false, after: restPage.nextCursor })
    expect(ids(rest2)).toEqual([opened[2]])
    expect(ids(viaRestCursor)).toEqual(ids(rest2))
    const last = rest2.verificationProposals
    expect(last.pageInfo).toEqual({ hasNextPage: false, endCursor: last.edges[0]!.cursor })
  })

  it('narrows by whether the account voted, and shows the ballot through the loaders', async () => {
    const voter = keys.voters[1]!
    await castVote(t, opened[1]!, voter.key, 'no')
    const voted = await as(keys.registrar.key).request<Page>(PROPOSALS, { voter: voter.account, voted: true })
    expect(ids(voted)).toEqual([opened[1]])
    expect(voted.verificationProposals.edges[0]!.node).toMatchObject({
      tally: { yes: 0, total: 1 }, votes: [{ account: voter.account, vote: 'no' }]
    })
    const notVoted = await as(voter.key).request<Page>(PROPOSALS, { voter: 'me', voted: false })
    expect(ids(notVoted)).toEqual([opened[0], opened[2]])
    const nobody = await as(keys.registrar.key).request<Page>(PROPOSALS, { voter: 'me' })
    expect(ids(nobody)).toEqual([])
    const closed = await as(keys.registrar.key).request<Page>(PROPOSALS, { status: 'passed' })
    expect(ids(closed)).toEqual([])
  })

  it('refuses filters REST refuses, with the REST codes', async () => {
    const alone = await refusal({ voted: true })
    expect(alone.status).toBe(400)
    expect(alone.errors[0]).toMatchObject({
      path: ['verificationProposals'], extensions: { code: 'DOMAIN_INVALID_REQUEST' }
    })
    const codeOf = async (variables: Record<string, unknown>) => (await refusal(variables)).errors[0]?.extensions?.code
    expect(await codeOf({ voter: 'not a did' })).toBe('DOMAIN_INVALID_REQUEST')
    expect(await codeOf({ after: 'not-a-cursor' })).toBe('DOMAIN_INVALID_CURSOR')
    const big = await refusal({ first: 101 })
    expect([big.status, big.errors[0]?.extensions?.code]).toEqual([400, 'DOMAIN_GRAPHQL_TOO_COMPLEX'])
  })
})
