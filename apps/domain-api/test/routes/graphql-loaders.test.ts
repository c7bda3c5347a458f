import Fastify, { type FastifyBaseLogger } from 'fastify'
import type { KyselyPlugin } from 'kysely'
import { describe, expect, it, onTestFinished } from 'vitest'
import { ErrorBodySchema } from '@impact/schemas'
import { errorHandler } from '@impact/service-kit'
import { createSharedState } from '@impact/shared-state'
import { createUcanVerifier, loadServiceIdentity } from '@impact/ucan'
import { apiKeyAuthPlugin } from '../../src/plugins/auth.ts'
import { graphqlRoutes } from '../../src/routes/graphql/index.ts'
import { createAccountService } from '../../src/services/accounts.ts'
import { createApiKeyService, type Caller } from '../../src/services/api-keys.ts'
import { createDomainService } from '../../src/services/domains.ts'
import { createGovernanceService } from '../../src/services/governance.ts'
import { testClock } from '@impact/service-kit/testing'
import { ADMIN_KEY, fileDatabase, PROTOCOL } from '../helper.ts'

const file = fileDatabase()
const silentLog = { info () {}, warn () {}, error () {} } as unknown as FastifyBaseLogger
const registrar: Caller = {
  keyId: 'k-registrar',
  name: 'registrar',
  roles: ['registrar', 'compliance'],
  account: 'did:ixo:registrar',
  via: 'api-key',
  service: null,
  organisation: null
}
const voter = (i: number): Caller => ({
  keyId: `k-voter-${i}`,
  name: 'voter',
  roles: ['voter'],
  account: `did:ixo:voter${i}`,
  via: 'api-key',
  service: null,
  organisation: null
})

/** The GraphQL routes alone on a bare Fastify, over a database handle that counts its statements. */
async function countingGraphql () {
  let statements = 0
  const counter: KyselyPlugin = {
    transformQuery: ({ node }) => { statements++; return node },
    transformResult: async ({ result }) => result
  }
  const db = file.database.db.withPlugin(counter)
  const clock = testClock()
  const domains = createDomainService({ db, clock: clock.date, idempotencyTtlMs: 60_000 })
  const settings = { quorum: '3', threshold: 0.6, periodMs: 3_600_000 }
  const governance = createGovernanceService({ db, clock: clock.date, settings })
  const state = createSharedState({ url: undefined, prefix: 'graphql-loaders:' })
  const bootstrap = { key: ADMIN_KEY, account: 'did:ixo:admin' }
  const accounts = createAccountService({ db, state, clock: clock.date, log: silentLog, cacheTtlMs: 60_000 })
  await accounts.start()
  const identity = await loadServiceIdentity({ privateKey: undefined, dataDir: undefined, fileName: 'unused' })
  const verifier = createUcanVerifier({ oracleDid: identity.did, oracleKeyDid: identity.keyDid })
  const apiKeys = createApiKeyService({
    db, state, clock: clock.date, log: silentLog, cacheTtlMs: 60_000, bootstrap, accounts, verifier
  })
  await apiKeys.start()
  const app = Fastify()
  app.addSchema(ErrorBodySchema)
  app.setErrorHandler(errorHandler)
  await app.register(apiKeyAuthPlugin)
  const limits = { graphiql: false, maxDepth: 15, maxCost: 5000 }
  await app.register(graphqlRoutes, { apiKeys, domains, governance, db, clock: clock.date, ...limits })
  onTestFinished(async () => {
    await app.close()
    await apiKeys.close()
    await accounts.close()
    await state.close()
  })
  return { app, domains, governance, clock, counted: () => statements }
}

describe('GraphQL loaders', () => {
  it('reads a page with nested proposals, votes, links and histories in a fixed number of statements', async () => {
    const { app, domains, governance, clock, counted } = await countingGraphql()
    const protocol = (await domains.create(registrar, { type: 'Protocol', class: PROTOCOL })).domain.did
    const voters = [0, 1, 2, 3, 4, 5, 10, 11, 12]
    await file.database.db.insertInto('account_roles').values(voters.map((i) => ({
      account: voter(i).account, role: 'voter', granted_by: 'test', granted_at: new Date()
    }))).execute()
    // A class must be a verified protocol: a council of three verifies it.
    const council = [10, 11, 12].map((i) => voter(i).account)
    const evidence = 'https://evidence.example/protocol'
    const review = await governance.propose(registrar, protocol, { evidence, council })
    for (const i of [10, 11, 12]) await governance.vote(voter(i), review.id, { vote: 'yes' })
    for (let i = 0; i < 6; i++) {
      const { domain } = await domains.create(registrar, { type: 'Project', class: protocol })
      const proposal = await governance.propose(registrar, domain.did, { evidence: 'https://evidence.example/pack' })
      await governance.vote(voter(i), proposal.id, { vote: 'yes' })
      clock.advance(1000)
    }
    const page = async (first: number) => {
      const before = counted()
      const res = await app.inject({
        method: 'POST',
        url: '/graphql',
        headers: { authorization: `Bearer ${ADMIN_KEY}` },
        payload: {
          query: `query ($protocol: String, $first: Int) {
            domains(filter: { protocol: $protocol }, first: $first) { edges { node {
              did usable
              links { domain { did } }
              openProposal { tally { yes } votes { keyId } domain { did } }
              latestProposal { id }
              history(first: 5) { edges { node { event } } }
            } } }
          }`,
          variables: { protocol, first }
        }
      })
      expect(res.statusCode).toBe(200)
      const nodes = res.json().data.domains.edges.map((e: { node: Record<string, any> }) => e.node)
      expect(nodes).toHaveLength(first)
      for (const node of nodes) {
        expect(node.openProposal.votes).toHaveLength(1)
        expect(node.history.edges).toHaveLength(2)
      }
      return counted() - before
    }
    const one = await page(1)
    expect(await page(6)).toBe(one)

    const proposals = async (first: number) => {
      const before = counted()
      const res = await app.inject({
        method: 'POST',
        url: '/graphql',
        headers: { authorization: `Bearer ${ADMIN_KEY}` },
        payload: {
          query: `query ($first: Int) { verificationProposals(status: open, first: $first) { edges { node {
            id votes { account } domain { did openProposal { id } }
          } } } }`,
          variables: { first }
        }
      })
      expect(res.statusCode).toBe(200)
      const nodes = res.json().data.verificationProposals.edges.map((e: { node: Record<string, any> }) => e.node)
      expect(nodes).toHaveLength(first)
      for (const node of nodes) expect([node.votes.length, node.domain.openProposal.id]).toEqual([1, node.id])
      return counted() - before
    }
    expect(await proposals(6)).toBe(await proposals(1))
  }, 60_000)
})
