import { beforeAll, describe, expect, it } from 'vitest'
import { mintDelegation } from '@impact/ucan'
import { until } from '@impact/service-kit/testing'
import { fileHarness, type TestUser } from '../support/harness.ts'

const OPERATOR = 'operator-token-0123456789abcdef'
const caps = [{ can: '*', with: 'ixo:oracle' }]

describe('GET /audit', () => {
  const t = fileHarness({ ORACLE_OPERATOR_TOKEN: OPERATOR })
  let alice: TestUser
  beforeAll(async () => { alice = await t.h.user() })

  const audit = async (query = '', token = OPERATOR) =>
    await t.h.app.inject({ url: `/audit${query}`, headers: { authorization: `Bearer ${token}` } })
  const entries = async (where: (entry: any) => boolean) =>
    (await audit('?limit=200')).json().items.filter(where) as any[]

  it('records a delegation stored and revoked by its user, never the token', async () => {
    const raw = await mintDelegation({ issuer: alice.signer, audience: t.h.oracleDid, capabilities: caps })
    const headers = alice.headers
    const stored = await t.h.app.inject({ method: 'POST', url: '/delegation', headers, payload: { raw } })
    expect(stored.statusCode).toBe(200)
    const revoked = await t.h.app.inject({ method: 'DELETE', url: '/delegation', headers: alice.headers })
    expect(revoked.statusCode).toBe(200)

    const mine = await entries((entry) => entry.actor === alice.did)
    expect(mine.map((entry) => entry.action)).toEqual(['delegation.revoked', 'delegation.stored'])
    expect(mine[1]).toMatchObject({ details: { abilities: ['*'] }, ip: '127.0.0.1' })
    expect(mine[1].requestId).toBe(stored.headers['x-request-id'])
    expect(mine[0].details.cids).toContain(mine[1].subject)
    const text = JSON.stringify(mine)
    for (const secret of [raw, alice.invocation, alice.delegation]) expect(text).not.toContain(secret)
  })

  it('records refused credentials, and answers only the operator token', async () => {
    const headers = { authorization: 'Bearer nope' }
    const refused = await t.h.app.inject({ method: 'POST', url: '/sessions', headers })
    expect(refused.statusCode).toBe(401)
    expect((await audit('', 'not-the-operator-token')).statusCode).toBe(401)
    const byRequest = async (id: unknown) => await entries((entry) => entry.requestId === id)
    await until(async () => (await byRequest(refused.headers['x-request-id'])).length === 1)
    expect((await byRequest(refused.headers['x-request-id']))[0]).toMatchObject({
      action: 'auth.refused', outcome: 'failure', subject: 'POST /sessions', details: { status: 401 }
    })
    const reads = async () => await entries((entry) => entry.action === 'operator.request')
    await until(async () => (await reads()).length > 0)
    expect((await reads())[0]).toMatchObject({ actor: 'operator', subject: 'GET /audit', details: { status: 200 } })
  })
})
