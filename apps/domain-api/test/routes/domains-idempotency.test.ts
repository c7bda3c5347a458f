import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PROTOCOL, randomAccount, startApp, type TestApp } from '../helper.ts'

let t: TestApp
let registrar: { id: string, key: string, account: string }

beforeAll(async () => {
  t = await startApp({ IDEMPOTENCY_TTL_SECONDS: '600' })
  registrar = await t.issueKey(['registrar'], randomAccount())
})
afterAll(async () => { await t?.close() })

const body = { type: 'Project', class: PROTOCOL, metadata: { name: 'Clean Cooking Project', region: 'Nairobi' } }
const create = (key: string, idempotencyKey: string | undefined, payload: object = body, apiKey = registrar.key) =>
  t.app.inject({
    method: 'POST',
    url: '/v1/domains',
    headers: { ...t.auth(apiKey), ...(idempotencyKey !== undefined ? { 'idempotency-key': idempotencyKey } : {}) },
    payload
  })
const countDomains = async (account: string) => {
  const res = await t.app.inject({
    method: 'GET',
    url: `/v1/domains?controller=${account}&limit=100`,
    headers: t.auth(registrar.key)
  })
  return (res.json().items as unknown[]).length
}

describe('Idempotency-Key on POST /v1/domains', () => {
  it('returns the first result to a retry instead of registering a twin', async () => {
    const account = randomAccount()
    const payload = { ...body, controllers: [account] }
    const first = await create(registrar.key, 'retry-1', payload)
    expect(first.statusCode).toBe(201)
    expect(first.headers['idempotent-replayed']).toBeUndefined()
    const retry = await create(registrar.key, 'retry-1', {
      controllers: [account],
      metadata: { region: 'Nairobi', name: 'Clean Cooking Project' },
      class: PROTOCOL,
      type: 'Project'
    })
    expect(retry.statusCode).toBe(201)
    expect(retry.headers['idempotent-replayed']).toBe('true')
    expect(retry.headers.location).toBe(first.headers.location)
    expect(retry.json()).toEqual(first.json())
    expect(await countDomains(account)).toBe(1)
  })

  it('answers 422 when the same key comes with a different body', async () => {
    await create(registrar.key, 'reuse-1')
    const res = await create(registrar.key, 'reuse-1', { ...body, type: 'Oracle' })
    expect(res.statusCode).toBe(422)
    expect(res.json()).toMatchObject({
      statusCode: 422,
      error: 'Unprocessable Entity',
      code: 'DOMAIN_IDEMPOTENCY_KEY_REUSED'
    })
  })

  it('creates exactly one domain from concurrent requests with the same key', async () => {
    const account = randomAccount()
    const payload = { ...body, controllers: [account] }
    const results = await Promise.all(
      Array.from({ length: 20 }, async () => await create(registrar.key, 'concurrent-1', payload))
    )
    expect(results.map((r) => r.statusCode)).toEqual(Array(20).fill(201))
    expect(new Set(results.map((r) => r.json().did)).size).toBe(1)
    expect(results.filter((r) => r.headers['idempotent-replayed'] === undefined)).toHaveLength(1)
    expect(await countDomains(account)).toBe(1)
  })

  it('keeps keys of different API keys apart', async () => {
    const other = await t.issueKey(['registrar'], randomAccount())
    const a = await create(registrar.key, 'shared-name')
    const b = await create(other.key, 'shared-name', body, other.key)
    expect(b.statusCode).toBe(201)
    expect(b.json().did).not.toBe(a.json().did)
  })

  it('does not remember failed requests', async () => {
    const bad = await create(registrar.key, 'fix-and-retry', { ...body, type: 'Spaceship' })
    expect(bad.statusCode).toBe(400)
    expect((await create(registrar.key, 'fix-and-retry')).statusCode).toBe(201)
  })

  it('forgets a key after its retention period', async () => {
    const first = await create(registrar.key, 'old-key')
    t.clock.advance(601_000)
    const later = await create(registrar.key, 'old-key')
    expect(later.statusCode).toBe(201)
    expect(later.headers['idempotent-replayed']).toBeUndefined()
    expect(later.json().did).not.toBe(first.json().did)
  })

  it('refuses a malformed key', async () => {
    expect((await create(registrar.key, 'x'.repeat(300))).statusCode).toBe(400)
    expect((await create(registrar.key, 'has space')).statusCode).toBe(400)
  })

  it('creates a new domain per request without a key', async () => {
    const a = await create(registrar.key, undefined)
    const b = await create(registrar.key, undefined)
    expect(a.json().did).not.toBe(b.json().did)
  })
})
