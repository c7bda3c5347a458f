import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { issueGovernance, type Governance } from '../governance.ts'
import { randomAccount, startApp, type TestApp } from '../helper.ts'
import { startProgramme, stoveOf, type Programme } from '../programme.ts'

let t: TestApp
let keys: Governance
let programme: Programme

// A thousand registrations per request, several times over, on a shared machine.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 })

beforeAll(async () => {
  t = await startApp()
  keys = await issueGovernance(t)
  programme = await startProgramme(t, keys)
})
afterAll(async () => { await t?.close() })

interface Result {
  index: number
  status: 'created' | 'error'
  did?: string
  externalId?: string | null
  error?: { statusCode: number, code: string, message: string, details?: Array<{ field: string }> }
}

const batch = (items: object[], headers: Record<string, string> = {}, key = keys.registrar.key) => t.app.inject({
  method: 'POST', url: '/v1/domains/batch', headers: { ...t.auth(key), ...headers }, payload: { items }
})
const serial = (prefix: string, i: number) => `${prefix}-${String(i).padStart(5, '0')}`
const stoves = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => stoveOf(programme, serial(prefix, i)))

/** How many `created` events the feed holds for `dids`. */
async function createdEvents (dids: Set<string>): Promise<number> {
  let count = 0
  let after: string | undefined
  for (;;) {
    const res = await t.app.inject({
      method: 'GET',
      url: `/v1/events?types=created&limit=500${after !== undefined ? `&after=${after}` : ''}`,
      headers: t.auth(keys.registrar.key)
    })
    const page = res.json() as { items: Array<{ domainDid: string }>, nextCursor: string, hasMore: boolean }
    count += page.items.filter((e) => dids.has(e.domainDid)).length
    if (!page.hasMore) return count
    after = page.nextCursor
  }
}

/**
 * The feed shows an event once every transaction older than it has ended, on the whole server (others' tests
 * share it): wait for them.
 */
async function feedCounts (dids: Set<string>): Promise<number> {
  let count = await createdEvents(dids)
  for (let waited = 0; count < dids.size && waited < 20_000; waited += 200) {
    await new Promise((resolve) => setTimeout(resolve, 200))
    count = await createdEvents(dids)
  }
  return count
}

describe('POST /v1/domains/batch', () => {
  it('registers 1,000 devices with a result per item in input order, a repeated serial refused', async () => {
    const household = randomAccount()
    const items: object[] = stoves('BLK', 1000)
    items[500] = stoveOf(programme, serial('BLK', 10))
    items[501] = stoveOf(programme, serial('BLK', 501), { onBehalfOf: household })
    items[502] = stoveOf(programme, serial('BLK', 502), { class: programme.project })
    const res = await batch(items)
    expect(res.statusCode, res.body).toBe(200)
    const body = res.json() as { items: Result[], created: number, failed: number }
    expect(body).toMatchObject({ created: 998, failed: 2 })
    expect(body.items.map((r) => r.index)).toEqual(items.map((_, i) => i))
    const first = body.items[10]!
    expect(first).toEqual({
      index: 10, status: 'created', did: expect.stringMatching(/^did:ixo:entity:/), externalId: serial('BLK', 10)
    })
    expect(body.items[500])
      .toMatchObject({ status: 'error', error: { statusCode: 409, code: 'DOMAIN_EXTERNAL_ID_TAKEN' } })
    expect(body.items[500]!.error!.message).toContain(first.did)
    expect(body.items[502]).toMatchObject({
      status: 'error', error: { statusCode: 422, code: 'DOMAIN_CLASS_NOT_PROTOCOL', details: [{ field: '/class' }] }
    })

    const dids = new Set(body.items.flatMap((r) => (r.did !== undefined ? [r.did] : [])))
    expect(dids.size).toBe(998)
    expect(await feedCounts(dids)).toBe(998)
    const read = await t.app.inject({
      method: 'GET', url: `/v1/domains/${body.items[501]!.did}`, headers: t.auth(keys.registrar.key)
    })
    expect(read.json()).toMatchObject({
      externalId: serial('BLK', 501),
      controllers: [household],
      createdBy: { account: keys.registrar.account },
      project: programme.project,
      organisation: programme.organisation,
      status: 'draft'
    })
  })

  it('refuses items already registered, and the same serial twice in later chunks', async () => {
    const items = [stoveOf(programme, serial('BLK', 3)), ...stoves('LATE', 600), stoveOf(programme, serial('LATE', 1))]
    const body = (await batch(items)).json() as { items: Result[], created: number }
    expect(body.created).toBe(600)
    expect(body.items[0]!.error?.code).toBe('DOMAIN_EXTERNAL_ID_TAKEN')
    expect(body.items[601]!.error?.code).toBe('DOMAIN_EXTERNAL_ID_TAKEN')
    expect(body.items[601]!.error?.message).toContain(body.items[2]!.did)
  })

  it('replays the results for a repeat with the same Idempotency-Key, and refuses another body under it', async () => {
    const items = stoves('IDEM', 700)
    const headers = { 'idempotency-key': 'stoves-delivery-2026-12-22' }
    const first = await batch(items, headers)
    expect(first.statusCode).toBe(200)
    expect(first.headers['idempotent-replayed']).toBeUndefined()
    const again = await batch(items, headers)
    expect(again.statusCode).toBe(200)
    expect(again.headers['idempotent-replayed']).toBe('true')
    expect(again.json()).toEqual(first.json())
    const dids = new Set((first.json().items as Result[]).map((r) => r.did!))
    expect(await feedCounts(dids)).toBe(700)

    const other = await batch(stoves('IDEM-B', 2), headers)
    expect(other.statusCode).toBe(422)
    expect(other.json().code).toBe('DOMAIN_IDEMPOTENCY_KEY_REUSED')
    const otherKey = await t.issueKey(['registrar'], keys.registrar.account)
    const ownScope = await batch(stoves('IDEM-C', 2), headers, otherKey.key)
    expect(ownScope.json().created).toBe(2)
  })

  it('creates the domains once when repeats with one key arrive together', async () => {
    const items = stoves('RACE', 300)
    const headers = { 'idempotency-key': 'race-1' }
    const answers = await Promise.all([batch(items, headers), batch(items, headers), batch(items, headers)])
    for (const answer of answers) {
      expect([200, 409]).toContain(answer.statusCode)
      if (answer.statusCode === 409) expect(answer.json().code).toBe('DOMAIN_BATCH_IN_PROGRESS')
    }
    const done = await batch(items, headers)
    expect(done.headers['idempotent-replayed']).toBe('true')
    const results = done.json().items as Result[]
    expect(results.every((r) => r.status === 'created')).toBe(true)
    for (const answer of answers.filter((a) => a.statusCode === 200)) expect(answer.json()).toEqual(done.json())
    const page = await t.app.inject({
      method: 'GET', url: '/v1/domains?externalIdPrefix=RACE-&limit=1', headers: t.auth(keys.registrar.key)
    })
    expect(results.map((r) => r.did)).toContain(page.json().items[0].did)
    expect(await feedCounts(new Set(results.map((r) => r.did!)))).toBe(300)
  })

  it('refuses a body that breaks the schema whole, naming the item', async () => {
    const items: object[] = stoves('BAD', 5)
    items[3] = { ...stoveOf(programme, 'BAD 3') }
    const res = await batch(items)
    expect(res.statusCode).toBe(400)
    expect(res.json().details[0].field).toBe('body/items/3/externalId')
    expect((await batch(stoves('MANY', 1001))).statusCode).toBe(400)
    expect((await batch([])).statusCode).toBe(400)
  })

  it('takes the auth of a single create', async () => {
    const none = await t.app.inject({ method: 'POST', url: '/v1/domains/batch', payload: { items: stoves('AUTH', 1) } })
    expect(none.statusCode).toBe(401)
    const voter = keys.voters[0]!
    const refused = await batch(stoves('AUTH', 1), {}, voter.key)
    expect(refused.statusCode).toBe(403)
    expect(refused.json().code).toBe('DOMAIN_FORBIDDEN')
  })
})
