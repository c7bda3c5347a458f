import { buildSchema, getIntrospectionQuery } from 'graphql'
import { ClientError, GraphQLClient, gql } from 'graphql-request'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { castVote, createProposal, EVIDENCE, issueGovernance, verifiedProtocol } from '../governance.ts'
import { randomAccount, startApp, type TestApp } from '../helper.ts'

type Key = { id: string, key: string, account: string }
let t: TestApp
let url: string
let registrar: Key
let compliance: Key
let voters: Key[]
let client: GraphQLClient

// Real HTTP round trips through several REST and GraphQL calls per test: room for a loaded machine.
vi.setConfig({ testTimeout: 30_000 })

beforeAll(async () => {
  t = await startApp()
  url = `${await t.app.listen({ host: '127.0.0.1', port: 0 })}/graphql`
  ;({ registrar, compliance, voters } = await issueGovernance(t))
  client = new GraphQLClient(url, { headers: t.auth(registrar.key) })
}, 60_000)
afterAll(async () => { await t?.close() })

const newProtocol = () => `did:ixo:protocol/${randomAccount().slice(-24)}`
const propose = async (did: string) => await createProposal(t, did, compliance.key)
const vote = async (id: string, voter: Key, choice: string) => await castVote(t, id, voter.key, choice)

/** What a client sees when a request is refused: status and body. */
async function refusal (query: string, variables?: Record<string, unknown>, headers?: Record<string, string>) {
  const error = await new GraphQLClient(url, { headers: headers ?? t.auth(registrar.key) })
    .request(query, variables).then(() => undefined, (e: unknown) => e)
  expect(error).toBeInstanceOf(ClientError)
  const { response } = error as ClientError & { response: { body?: string } }
  // graphql-request keeps a body without GraphQL errors (the JSON error body of a 401) as text.
  const body = response.body !== undefined ? JSON.parse(response.body) : response
  return { status: response.status, body: body as Record<string, any> }
}

const STATUS = gql`
  query Status($did: ID!) {
    domain(did: $did) {
      did status verified usable controllers
      links { relationship did }
      openProposal { id status tally { yes no abstain total } }
      latestProposal { id status quorum threshold tally { yes no abstain total } votes { keyId vote } }
      history { edges { node { event fromStatus toStatus actor { kind keyId } proposalId } } }
    }
  }
`

describe('POST /graphql', () => {
  it('answers the status of a domain verified through REST, with the open proposal\'s tally on the way', async () => {
    const domain = await t.createDomain(registrar.key)
    const proposal = await propose(domain.did)
    await vote(proposal.id, voters[0]!, 'yes')

    const open = await client.request<{ domain: Record<string, any> }>(STATUS, { did: domain.did })
    expect(open.domain).toMatchObject({
      status: 'verification_submitted',
      verified: false,
      usable: false,
      openProposal: { id: proposal.id, status: 'open', tally: { yes: 1, no: 0, abstain: 0, total: 1 } }
    })

    await vote(proposal.id, voters[1]!, 'abstain')
    await vote(proposal.id, voters[2]!, 'yes')
    const { domain: verified } = await client.request<{ domain: Record<string, any> }>(STATUS, { did: domain.did })
    const rest = (await t.app.inject({ url: `/v1/domains/${domain.did}`, headers: t.auth(registrar.key) })).json()
    expect(verified).toMatchObject({ did: domain.did, status: 'verified', verified: true, usable: true })
    expect([verified.status, verified.verified, verified.usable]).toEqual([rest.status, rest.verified, rest.usable])
    expect(verified.controllers).toEqual([registrar.account])
    expect(verified.links).toEqual([{ relationship: 'protocol', did: rest.class }])
    expect(verified.openProposal).toBeNull()
    expect(verified.latestProposal).toMatchObject({
      id: proposal.id,
      status: 'passed',
      quorum: 3,
      threshold: 0.6,
      tally: { yes: 2, no: 0, abstain: 1, total: 3 }
    })
    expect(verified.latestProposal.votes.map((v: { keyId: string, vote: string }) => [v.keyId, v.vote]).sort())
      .toEqual([[voters[0]!.id, 'yes'], [voters[1]!.id, 'abstain'], [voters[2]!.id, 'yes']].sort())
    expect(verified.history.edges.map((e: { node: Record<string, unknown> }) => [e.node.event, e.node.toStatus]))
      .toEqual([['created', 'draft'], ['verification_proposed', 'verification_submitted'], ['verified', 'verified']])
    expect(verified.history.edges[2].node)
      .toMatchObject({ actor: { kind: 'governance', keyId: null }, proposalId: proposal.id })
  })

  it('reads a proposal by id with its tally, votes and domain', async () => {
    const domain = await t.createDomain(registrar.key)
    const proposal = await propose(domain.did)
    await vote(proposal.id, voters[0]!, 'no')
    const data = await client.request<{ verificationProposal: Record<string, any> }>(gql`
      query ($id: ID!) {
        verificationProposal(id: $id) {
          id status evidence tally { yes no total } votes { keyId account vote } domain { did status usable }
        }
      }`, { id: proposal.id })
    expect(data.verificationProposal).toEqual({
      id: proposal.id,
      status: 'open',
      evidence: EVIDENCE,
      tally: { yes: 0, no: 1, total: 1 },
      votes: [{ keyId: voters[0]!.id, account: voters[0]!.account, vote: 'no' }],
      domain: { did: domain.did, status: 'verification_submitted', usable: false }
    })
  })

  it('shows the electorate, quorum rule, changed votes with their rationale, and a veto', async () => {
    const vetoer = await t.issueKey(['vetoer'])
    const domain = await t.createDomain(registrar.key)
    const proposal = await propose(domain.did)
    await castVote(t, proposal.id, voters[0]!.key, 'no', 'no site visit')
    await castVote(t, proposal.id, voters[0]!.key, 'yes', 'visited')
    await castVote(t, proposal.id, vetoer.key, 'veto')
    const data = await client.request<{ verificationProposal: Record<string, any> }>(gql`
      query ($id: ID!) {
        verificationProposal(id: $id) {
          status quorumRule electorate { source size vetoers } tally { yes no veto total }
          votes { keyId account vote rationale supersededAt }
        }
      }`, { id: proposal.id })
    const ballot = (k: Key, vote: string, rationale: string | null) =>
      ({ keyId: k.id, account: k.account, vote, rationale })
    const superseded = (await t.app.inject({
      url: `/v1/verification-proposals/${proposal.id}`, headers: t.auth(registrar.key)
    })).json().votes[0].supersededAt
    expect(data.verificationProposal).toEqual({
      status: 'vetoed',
      quorumRule: '3',
      electorate: { source: 'voter-role', size: voters.length, vetoers: 1 },
      tally: { yes: 1, no: 0, veto: 1, total: 1 },
      votes: [
        { ...ballot(voters[0]!, 'no', 'no site visit'), supersededAt: superseded },
        { ...ballot(voters[0]!, 'yes', 'visited'), supersededAt: null },
        { ...ballot(vetoer, 'veto', null), supersededAt: null }
      ]
    })
  })

  it('answers null with DOMAIN_NOT_FOUND for a domain the registry does not hold', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { ...t.auth(registrar.key), 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ domain(did: "did:ixo:entity:00000000000000000000000000000000") { status } }' })
    })
    expect(res.status).toBe(200)
    const body = await res.json() as Record<string, any>
    expect(body.data).toEqual({ domain: null })
    expect(body.errors)
      .toEqual([expect.objectContaining({ path: ['domain'], extensions: { code: 'DOMAIN_NOT_FOUND' } })])
  })

  it('pages through domains with cursors, newest first, like the REST listing', async () => {
    const protocol = newProtocol()
    const created = []
    for (let i = 0; i < 5; i++) {
      created.push((await t.createDomain(registrar.key, { class: protocol })).did)
      t.clock.advance(1000)
    }
    const PAGE = gql`
      query Page($protocol: String, $after: String) {
        domains(filter: { protocol: $protocol }, first: 2, after: $after) {
          edges { cursor node { did protocol } }
          pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
        }
      }`
    type Page = { domains: { edges: Array<{ cursor: string, node: { did: string } }>, pageInfo: Record<string, any> } }
    const seen: string[] = []
    let after: string | null = null
    let pages = 0
    do {
      const { domains }: Page = await client.request<Page>(PAGE, { protocol, after })
      pages++
      expect(domains.edges.length).toBeLessThanOrEqual(2)
      expect(domains.pageInfo.endCursor).toBe(domains.edges.at(-1)?.cursor ?? null)
      seen.push(...domains.edges.map((e) => e.node.did))
      after = domains.pageInfo.hasNextPage === true ? domains.pageInfo.endCursor : null
    } while (after !== null)
    expect(pages).toBe(3)
    expect(seen).toEqual([...created].reverse())

    const first = await client.request<Page>(PAGE, { protocol })
    const resumed = await client.request<Page>(PAGE, { protocol, after: first.domains.edges[0]!.cursor })
    expect(resumed.domains.edges.map((e) => e.node.did)).toEqual([created[3], created[2]])
    const listed = await t.app.inject({
      url: `/v1/domains?protocol=${protocol}&limit=2`,
      headers: t.auth(registrar.key)
    })
    const rest = listed.json()
    expect(rest.items.map((d: { did: string }) => d.did)).toEqual(first.domains.edges.map((e) => e.node.did))
  })

  it('pages through a domain\'s history', async () => {
    const domain = await t.createDomain(registrar.key)
    for (const name of ['a', 'b', 'c']) {
      const res = await t.app.inject({
        method: 'PATCH',
        url: `/v1/domains/${domain.did}`,
        headers: t.auth(registrar.key),
        payload: { metadata: { name } }
      })
      expect(res.statusCode).toBe(200)
    }
    const HISTORY = gql`
      query ($did: ID!, $after: String) {
        domain(did: $did) {
          history(first: 3, after: $after) { edges { node { id event } } pageInfo { hasNextPage endCursor } }
        }
      }`
    type Edges = Array<{ node: { id: string, event: string } }>
    type History = { domain: { history: { edges: Edges, pageInfo: Record<string, any> } } }
    const first = await client.request<History>(HISTORY, { did: domain.did })
    expect(first.domain.history.edges.map((e) => e.node.event)).toEqual(['created', 'updated', 'updated'])
    expect(first.domain.history.pageInfo.hasNextPage).toBe(true)
    const after = first.domain.history.pageInfo.endCursor
    const second = await client.request<History>(HISTORY, { did: domain.did, after })
    expect(second.domain.history.edges.map((e) => e.node.event)).toEqual(['updated'])
    expect(second.domain.history.pageInfo).toEqual({ hasNextPage: false, endCursor: expect.any(String) })
  })

  it('loads nested proposals, votes, links and histories for a whole page', async () => {
    const protocol = await verifiedProtocol(t, { registrar, compliance, voters })
    const dids = []
    for (let i = 0; i < 3; i++) {
      const { did } = await t.createDomain(registrar.key, { class: protocol })
      const { id } = await propose(did)
      await vote(id, voters[i]!, 'yes')
      dids.push(did)
      t.clock.advance(1000)
    }
    const data = await client.request<{ domains: { edges: Array<{ node: Record<string, any> }> } }>(gql`
      query ($protocol: String) {
        domains(filter: { protocol: $protocol }, first: 10) {
          edges { node {
            did
            links { domain { did type } }
            openProposal { tally { yes total } votes { keyId } domain { did } }
            history(first: 5) { edges { node { event } } }
          } }
        }
      }`, { protocol })
    const nodes = data.domains.edges.map((e) => e.node)
    expect(nodes.map((n) => n.did)).toEqual([...dids].reverse())
    nodes.forEach((node, i) => {
      const voter = voters[dids.length - 1 - i]!
      expect(node.links).toEqual([{ domain: { did: protocol, type: 'protocol' } }])
      expect(node.openProposal)
        .toEqual({ tally: { yes: 1, total: 1 }, votes: [{ keyId: voter.id }], domain: { did: node.did } })
      expect(node.history.edges.map((e: { node: { event: string } }) => e.node.event))
        .toEqual(['created', 'verification_proposed'])
    })
  })
})

describe('POST /graphql refusals', () => {
  it('refuses a request without a key with 401 and the JSON error body', async () => {
    const { status, body } = await refusal('{ domains { edges { cursor } } }', undefined, {})
    expect(status).toBe(401)
    expect(body).toMatchObject({ statusCode: 401, code: 'DOMAIN_AUTH_MISSING', error: 'Unauthorized' })
    const bad = await refusal('{ domains { edges { cursor } } }', undefined, { authorization: 'Bearer dk_nope' })
    expect(bad.status).toBe(401)
    expect(bad.body.code).toBe('DOMAIN_API_KEY_INVALID')
  })

  it('answers a query that does not parse or validate with 400 and GraphQL errors', async () => {
    for (const query of ['{ domain(did: "x") { status ', '{ domain(did: "x") { colour } }', '{ nothing }']) {
      const { status, body } = await refusal(query)
      expect(status, query).toBe(400)
      expect(body.data, query).toBeUndefined()
      expect(body.errors[0].extensions.code, query).toBe('DOMAIN_GRAPHQL_INVALID')
      expect(body.errors[0].message, query).toEqual(expect.any(String))
    }
  })

  it('answers bad variables and a bad cursor with 400', async () => {
    const PAGE = 'query ($first: Int, $after: String) { domains(first: $first, after: $after) { edges { cursor } } }'
    const wrongType = await refusal(PAGE, { first: 'ten' })
    expect(wrongType.status).toBe(400)
    expect(wrongType.body.errors[0].extensions.code).toBe('DOMAIN_GRAPHQL_INVALID')
    const missing = await refusal('query ($did: ID!) { domain(did: $did) { status } }')
    expect(missing.status).toBe(400)
    expect(missing.body.errors[0].extensions.code).toBe('DOMAIN_GRAPHQL_INVALID')
    const cursor = await refusal(PAGE, { after: 'not-a-cursor' })
    expect(cursor.status).toBe(400)
    expect(cursor.body.errors[0]).toMatchObject({ path: ['domains'], extensions: { code: 'DOMAIN_INVALID_CURSOR' } })
  })

  it('answers a malformed argument as a failed field: null and DOMAIN_INVALID_REQUEST', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { ...t.auth(registrar.key), 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ verificationProposal(id: "42") { status } }' })
    })
    expect(res.status).toBe(200)
    const body = await res.json() as Record<string, any>
    expect(body.data).toEqual({ verificationProposal: null })
    expect(body.errors[0].extensions)
      .toEqual({ code: 'DOMAIN_INVALID_REQUEST', details: [{ field: '/id', message: 'must be a UUID' }] })
  })

  it('answers a body that is not JSON with 400', async () => {
    const headers = { ...t.auth(registrar.key), 'content-type': 'application/json' }
    const res = await fetch(url, { method: 'POST', headers, body: '{"query":' })
    expect(res.status).toBe(400)
    expect((await res.json() as { statusCode: number }).statusCode).toBe(400)
  })

  it('refuses queries deeper than the depth limit', async () => {
    const nested = (depth: number): string => (depth === 0 ? 'did' : `links { domain { ${nested(depth - 1)} } }`)
    const { status, body } = await refusal(`query Deep { domain(did: "x") { ${nested(8)} } }`)
    expect(status).toBe(400)
    expect(body.errors[0].extensions.code).toBe('DOMAIN_GRAPHQL_TOO_COMPLEX')
    expect(body.errors[0].message).toMatch(/depth/)
  })

  it('refuses pages over 100 and queries over the cost limit, before reading anything', async () => {
    const big = await refusal('{ domains(first: 101) { edges { cursor } } }')
    expect(big.status).toBe(400)
    expect(big.body.errors[0]).toMatchObject({ extensions: { code: 'DOMAIN_GRAPHQL_TOO_COMPLEX' } })
    const zero = await refusal('query ($n: Int) { domains(first: $n) { edges { cursor } } }', { n: 0 })
    expect(zero.status).toBe(400)
    expect(zero.body.errors[0].extensions.code).toBe('DOMAIN_GRAPHQL_INVALID')
    const costly = await refusal(`{
      domains(first: 100) { edges { node { history(first: 100) { edges { node { actor { kind } } } } } } }
    }`)
    expect(costly.status).toBe(400)
    expect(costly.body.errors[0].extensions.code).toBe('DOMAIN_GRAPHQL_TOO_COMPLEX')
    expect(costly.body.errors[0].message).toMatch(/limit of 5000/)
    const affordable = await client.request<{ domains: { edges: unknown[] } }>(
      '{ domains(first: 100) { edges { node { history(first: 5) { edges { node { actor { kind } } } } } } } }')
    expect(Array.isArray(affordable.domains.edges)).toBe(true)
  })

  it('answers the standard introspection query', async () => {
    const data = await client.request<{ __schema: { queryType: { name: string } } }>(getIntrospectionQuery())
    expect(data.__schema.queryType.name).toBe('Query')
  })
})

describe('GET /graphql/schema', () => {
  it('serves the SDL, which graphql-js builds into the schema POST /graphql runs', async () => {
    const res = await fetch(`${url}/schema`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/)
    const schema = buildSchema(await res.text())
    expect(Object.keys(schema.getQueryType()!.getFields()).sort())
      .toEqual(['domain', 'domains', 'verificationProposal', 'verificationProposals'])
    expect(Object.keys((schema.getType('Domain') as any).getFields())).toEqual(
      expect.arrayContaining(['status', 'verified', 'usable', 'controllers', 'links', 'history', 'openProposal']))
  })
})

describe('docs and GraphiQL', () => {
  it('lists /graphql and /graphql/schema in the OpenAPI document', async () => {
    const doc = (await t.app.inject({ url: '/docs/json' })).json()
    expect(doc.paths['/graphql'].post).toMatchObject({
      tags: ['graphql'],
      security: [{ apiKey: [] }, { ucan: [] }],
      description: expect.stringMatching(/verificationProposal/)
    })
    expect(Object.keys(doc.paths['/graphql'].post.responses))
      .toEqual(expect.arrayContaining(['200', '400', '401', '403', '503']))
    expect(doc.paths['/graphql/schema'].get.responses['200'].content['text/plain']).toBeDefined()
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/graphiql'))).toEqual([])
  })

  it('serves no GraphiQL outside development unless enabled', async () => {
    expect((await t.app.inject({ url: '/graphiql' })).statusCode).toBe(404)
    const dev = await startApp({ GRAPHIQL_ENABLED: 'true' }, { database: t.database })
    try {
      const page = await dev.app.inject({ url: '/graphiql' })
      expect(page.statusCode).toBe(200)
      expect(page.headers['content-type']).toMatch(/text\/html/)
    } finally {
      await dev.close()
    }
  }, 60_000)
})
