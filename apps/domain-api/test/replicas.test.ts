import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '@impact/persistence/testing'
import { createProposal, vote, withCouncil } from './governance.ts'
import { ADMIN_KEY, PROTOCOL, startApp, type TestApp } from './helper.ts'

// Two replicas need a shared database and Redis: this runs in the servers pass.
const servers = (process.env.DATABASE_URL ?? '') !== '' && (process.env.REDIS_URL ?? '') !== ''

describe.runIf(servers)('two replicas on PostgreSQL and Redis', () => {
  let database: TestDatabase
  let a: TestApp
  let b: TestApp

  beforeAll(async () => {
    database = await createTestDatabase()
    // Every member must vote before a proposal can pass, and 0.5 passes a split: a vote stays open to the last.
    const env = { API_KEY_CACHE_TTL_SECONDS: '300', VERIFICATION_QUORUM: '100%', VERIFICATION_THRESHOLD: '0.5' }
    a = await startApp(env, { database })
    b = await startApp(env, { database })
  })
  afterAll(async () => {
    await a?.close()
    await b?.close()
    await database?.drop()
  })

  it('stops accepting a key on every replica as soon as one revokes it', async () => {
    const registrar = await a.issueKey(['registrar'])
    expect(
      (await b.app.inject({ method: 'GET', url: '/v1/api-keys/current', headers: b.auth(registrar.key) })).statusCode
    ).toBe(200)
    const revoke = await a.app.inject({
      method: 'DELETE',
      url: `/v1/api-keys/${registrar.id}`,
      headers: a.auth(ADMIN_KEY)
    })
    expect(revoke.statusCode).toBe(204)
    let status = 200
    for (let i = 0; i < 50 && status === 200; i++) {
      status = (await b.app.inject({ method: 'GET', url: '/v1/api-keys/current', headers: b.auth(registrar.key) }))
        .statusCode
      if (status === 200) await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect(status).toBe(401)
  })

  it('creates one domain when the same Idempotency-Key reaches both replicas at once', async () => {
    const registrar = await a.issueKey(['registrar'])
    const send = (t: TestApp) => t.app.inject({
      method: 'POST',
      url: '/v1/domains',
      headers: { ...t.auth(registrar.key), 'idempotency-key': 'across-replicas' },
      payload: { type: 'Asset', class: PROTOCOL }
    })
    const results = await Promise.all([send(a), send(b), send(a), send(b)])
    expect(new Set(results.map((r) => r.json().did)).size).toBe(1)
    const list = await a.app.inject({
      method: 'GET',
      url: `/v1/domains?controller=${registrar.account}`,
      headers: a.auth(registrar.key)
    })
    expect(list.json().items).toHaveLength(1)
  })

  it('tallies votes cast through both replicas exactly', async () => {
    const owner = await a.issueKey(['registrar', 'compliance'])
    const voters = await Promise.all(Array.from({ length: 10 }, async () => await a.issueKey(['voter'])))
    const domain = await a.createDomain(owner.key)
    const proposal = await createProposal(a, domain.did, owner.key, withCouncil(voters))
    const choices = ['no', 'no', 'yes', 'yes', 'abstain', 'abstain', 'abstain', 'abstain', 'abstain', 'abstain']
    const results = await Promise.all(
      voters.map(async (v, i) => await vote(i % 2 === 0 ? a : b, proposal.id, v.key, choices[i]))
    )
    expect(results.every((r) => r.statusCode === 201)).toBe(true)
    const final = (
      await b.app.inject({
        method: 'GET',
        url: `/v1/verification-proposals/${proposal.id}`,
        headers: b.auth(owner.key)
      })
    ).json()
    expect(final).toMatchObject({ status: 'passed', tally: { yes: 2, no: 2, abstain: 6, veto: 0, total: 10 } })
  })
})
