import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_KEY, randomAccount, startApp, type TestApp } from '../helper.ts'

let t: TestApp
let registrar: { key: string }
let compliance: { key: string }

beforeAll(async () => {
  t = await startApp()
  registrar = await t.issueKey(['registrar'], randomAccount())
  compliance = await t.issueKey(['compliance'], randomAccount())
})
afterAll(async () => { await t?.close() })

const send = (method: 'POST' | 'PATCH', url: string, key: string, payload: object | string) =>
  t.app.inject({ method, url, headers: { ...t.auth(key), 'content-type': 'application/json' }, payload })

describe('input that passes the schema but cannot be stored', () => {
  it('answers 400 for U+0000 in metadata, a deactivation reason, a proposal note and an API key name, ' +
    'and stores nothing', async () => {
    const domain = await t.createDomain(registrar.key)
    const refused = [
      await send('POST', '/v1/domains', registrar.key, {
        type: 'Project',
        class: domain.class,
        metadata: { name: 'Stove\u0000' }
      }),
      await send('PATCH', `/v1/domains/${domain.did}`, registrar.key, { metadata: { name: 'a\u0000b' } }),
      await send('POST', `/v1/domains/${domain.did}/deactivate`, registrar.key, {
        reason: 'closed\u0000'
      }),
      await send('POST', `/v1/domains/${domain.did}/verification-proposals`, compliance.key, {
        evidence: 'ipfs://bafy',
        note: 'n\u0000'
      }),
      await send('POST', '/v1/api-keys', ADMIN_KEY, { name: 'key\u0000', roles: ['voter'] })
    ]
    for (const res of refused) {
      expect(res.statusCode, res.body).toBe(400)
      expect(res.json()).toMatchObject({ statusCode: 400, code: 'FST_ERR_VALIDATION' })
    }
    const read = await t.app.inject({ method: 'GET', url: `/v1/domains/${domain.did}`, headers: t.auth(registrar.key) })
    expect(read.json()).toMatchObject({ status: 'draft', metadata: { name: 'Clean Cooking Project' } })
  })

  it('answers 400 for metadata nested thousands of levels deep instead of overflowing the stack', async () => {
    const nested = `${'{"a":'.repeat(4500)}1${'}'.repeat(4500)}`
    const deep = `{"type":"Project","class":"did:ixo:entity:0123456789abcdef0123456789abcdef","metadata":${nested}}`
    const res = await send('POST', '/v1/domains', registrar.key, deep)
    expect(res.statusCode).toBe(400)
    expect(res.json().details[0].message).toMatch(/deeper than 32 levels/)
  })

  it('answers 400 for a leap-second validity on create and on PATCH', async () => {
    const domain = await t.createDomain(registrar.key)
    const create = await send('POST', '/v1/domains', registrar.key, {
      type: 'Project',
      class: domain.class,
      validUntil: '2030-12-31T23:59:60Z'
    })
    const patch = await send('PATCH', `/v1/domains/${domain.did}`, registrar.key, { validFrom: '2016-12-31T23:59:60Z' })
    for (const res of [create, patch]) {
      expect(res.statusCode).toBe(400)
      expect(res.json().details[0].message).toBe('must match format "date-time"')
    }
  })
})
