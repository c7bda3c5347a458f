import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { until } from '@impact/service-kit/testing'
import { castVote, createProposal, issueGovernance, withCouncil } from '../governance.ts'
import { ADMIN_KEY, randomAccount, startApp, type TestApp } from '../helper.ts'

let t: TestApp
beforeAll(async () => { t = await startApp() }, 60_000)
afterAll(async () => { await t?.close() })

const audit = async (query = '', key = ADMIN_KEY) =>
  await t.app.inject({ url: `/v1/audit${query}`, headers: t.auth(key) })

const entries = async (where: (entry: any) => boolean) =>
  (await audit('?limit=200')).json().items.filter(where) as any[]

describe('GET /v1/audit', () => {
  it('records issued keys and role changes by the admin, without the key', async () => {
    const account = randomAccount()
    const key = await t.issueKey(['registrar'], account)
    const issued = await entries((entry) => entry.subject === key.id)
    expect(issued).toEqual([expect.objectContaining({
      action: 'api_key.issued', outcome: 'success', details: { account, roles: ['registrar'] }, ip: '127.0.0.1'
    })])
    expect(JSON.stringify(issued)).not.toContain(key.key)
    const roles = await entries((entry) => entry.subject === account && entry.action === 'roles.changed')
    expect(roles[0]).toMatchObject({ details: { roles: ['registrar'] } })
    expect(roles[0].actor).toEqual(issued[0].actor)
    expect(roles[0].requestId).not.toBe(issued[0].requestId)
  }, 30_000)

  it('records votes by the voting account, and revoked keys', async () => {
    const keys = await issueGovernance(t)
    const { did } = await t.createDomain(keys.registrar.key)
    const proposal = await createProposal(t, did, keys.compliance.key, withCouncil(keys.voters))
    await castVote(t, proposal.id, keys.voters[0]!.key, 'yes')
    expect(await entries((entry) => entry.action === 'vote.cast' && entry.subject === proposal.id)).toEqual([
      expect.objectContaining({
        actor: keys.voters[0]!.account, details: { vote: 'yes', via: 'api key', status: 'open' }
      })
    ])
    const url = `/v1/api-keys/${keys.registrar.id}`
    const revoked = await t.app.inject({ method: 'DELETE', url, headers: t.auth(ADMIN_KEY) })
    expect(revoked.statusCode).toBe(204)
    const ofKey = await entries((entry) => entry.subject === keys.registrar.id)
    expect(ofKey.map((entry) => entry.action)).toEqual(['api_key.revoked', 'api_key.issued'])
  }, 30_000)

  it('records refused credentials and admin requests as they end; only an admin reads the trail', async () => {
    const refused = await t.app.inject({ url: '/v1/api-keys', headers: t.auth('dak_not-a-real-key') })
    expect(refused.statusCode).toBe(401)
    const registrar = await t.issueKey(['registrar'])
    expect((await audit('', registrar.key)).statusCode).toBe(403)
    await until(async () => (await entries((entry) => entry.action === 'auth.refused')).length >= 1)
    const [refusal] = await entries((entry) => entry.requestId === refused.headers['x-request-id'])
    expect(refusal).toMatchObject({ outcome: 'failure', subject: 'GET /v1/api-keys', details: { status: 401 } })
    expect(JSON.stringify(refusal)).not.toContain('not-a-real-key')
    await until(async () => (await entries((entry) => entry.subject === 'GET /v1/audit')).length >= 2)
    const reads = await entries((entry) => entry.subject === 'GET /v1/audit')
    expect(reads.map((entry) => entry.details.status)).toContain(403)
    const admin = reads.find((entry) => entry.action === 'operator.request')
    expect(admin).toMatchObject({ outcome: 'success', actor: 'bootstrap' })
  }, 30_000)
})
