import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeCursor } from '@impact/schemas'
import { openAppDatabase } from '../../src/db/open.ts'
import { createProposal, issueGovernance, verifiedDomain, type Governance } from '../governance.ts'
import { startApp, type TestApp } from '../helper.ts'
import { waitFor } from '../webhook-receiver.ts'

const servers = (process.env.DATABASE_URL ?? '') !== ''

let t: TestApp
let keys: Governance
let registrar: Governance['registrar']

beforeAll(async () => {
  t = await startApp()
  keys = await issueGovernance(t)
  registrar = keys.registrar
}, 60_000)
afterAll(async () => { await t?.close() })

interface FeedPage { items: Array<Record<string, any>>, nextCursor: string, hasMore: boolean }

const feed = async (query = '', key = registrar.key) =>
  await t.app.inject({ method: 'GET', url: `/v1/events${query}`, headers: t.auth(key) })

/** Follows nextCursor from `after` until caught up. */
async function readAll (after?: string, extra = '', limit = 2) {
  const items: Array<Record<string, any>> = []
  let cursor = after
  for (;;) {
    const res = await feed(`?limit=${limit}${extra}${cursor !== undefined ? `&after=${cursor}` : ''}`)
    expect(res.statusCode).toBe(200)
    const page = res.json() as FeedPage
    items.push(...page.items)
    cursor = page.nextCursor
    if (!page.hasMore) return { items, cursor }
  }
}

/**
 * Reads the events of `dids` from `after` until `count` have appeared: an event shows once every write
 * transaction that started before it has ended, anywhere on the server (other test databases included).
 */
async function readUntil (after: string, dids: string[], count: number, extra = '') {
  const read = async () => {
    const { items, cursor } = await readAll(after, extra)
    return { items: items.filter((e) => dids.includes(e.domainDid)), cursor }
  }
  let result = await read()
  await waitFor(async () => (result = await read()).items.length >= count, `${count} events`)
  return result
}

const verifyDomain = async () => await verifiedDomain(t, keys)

describe('GET /v1/events', () => {
  it('lists every change of every domain in order, and resumes from a cursor', async () => {
    const { cursor: start } = await readAll()
    const did = await verifyDomain()
    const other = await t.createDomain(registrar.key)
    const deactivate = await t.app.inject({
      method: 'POST',
      url: `/v1/domains/${other.did}/deactivate`,
      headers: t.auth(registrar.key),
      payload: { reason: 'duplicate' }
    })
    expect(deactivate.statusCode).toBe(200)

    const { items, cursor } = await readUntil(start, [did, other.did], 9)
    expect(items.map((e) => [e.domainDid, e.event])).toEqual([
      [did, 'created'], [did, 'updated'], [did, 'verification_proposed'],
      [did, 'vote_cast'], [did, 'vote_cast'], [did, 'vote_cast'], [did, 'verified'],
      [other.did, 'created'], [other.did, 'deactivated']
    ])
    expect(new Set(items.map((e) => e.id)).size).toBe(items.length)
    expect(items[3]).toMatchObject({
      fromStatus: 'verification_submitted',
      toStatus: 'verification_submitted',
      details: { vote: 'yes' }
    })
    expect(items[6]).toMatchObject({
      fromStatus: 'verification_submitted',
      toStatus: 'verified',
      actor: { kind: 'governance' }
    })

    const caughtUp = (await feed(`?after=${cursor}`)).json() as FeedPage
    expect(caughtUp).toEqual({ items: [], nextCursor: cursor, hasMore: false })
    const third = await t.createDomain(registrar.key)
    const resumed = await readUntil(cursor, [third.did], 1)
    expect(resumed.items.map((e) => [e.domainDid, e.event])).toEqual([[third.did, 'created']])
  })

  it('keeps votes out of a domain\'s history of transitions', async () => {
    const did = await verifyDomain()
    expect((await t.history(did, registrar.key)).map((e) => e.event)).toEqual([
      'created',
      'updated',
      'verification_proposed',
      'verified'
    ])
  })

  it('carries the time-driven transitions once they are settled', async () => {
    const { cursor: start } = await readAll()
    const expiring = await t.createDomain(registrar.key, { validUntil: t.clock.at(2 * 3_600_000) })
    const reviewed = await t.createDomain(registrar.key)
    await createProposal(t, reviewed.did, keys.compliance.key)
    t.clock.advance(2 * 3_600_000)
    for (const did of [expiring.did, reviewed.did]) {
      expect(
        (await t.app.inject({ method: 'GET', url: `/v1/domains/${did}`, headers: t.auth(registrar.key) })).statusCode
      ).toBe(200)
    }
    const { items } = await readUntil(start, [expiring.did, reviewed.did], 2, '&types=expired,rejected')
    expect(items.map((e) => [e.domainDid, e.event, e.actor.kind])).toEqual([
      [expiring.did, 'expired', 'system'], [reviewed.did, 'rejected', 'governance']
    ])
  })

  it('filters by event type', async () => {
    const { cursor: start } = await readAll()
    const did = await verifyDomain()
    await t.createDomain(registrar.key)
    const { items } = await readUntil(start, [did], 2, '&types=verified,verification_proposed')
    expect(items.map((e) => [e.domainDid, e.event])).toEqual([[did, 'verification_proposed'], [did, 'verified']])
  })

  it('answers 400 to a malformed, foreign or out-of-range cursor and to unknown types', async () => {
    const bad = [
      '?after=not-a-cursor',
      `?after=${encodeCursor(['2026-01-01T00:00:00.000Z', 'did:ixo:entity:0123456789abcdef0123456789abcdef'])}`,
      `?after=${encodeCursor(['feed', '1', '99999999999999999999'])}`,
      `?after=${encodeCursor(['feed', '-1', '5'])}`,
      '?types=created,minted',
      '?limit=0'
    ]
    for (const query of bad) {
      const res = await feed(query)
      expect(res.statusCode, query).toBe(400)
      expect(res.json()).toMatchObject({ statusCode: 400, error: 'Bad Request' })
    }
    expect((await feed('?after=not-a-cursor')).json().code).toBe('DOMAIN_INVALID_CURSOR')
  })

  it('admits any valid key whatever its role, and no caller without one', async () => {
    expect((await feed('', keys.voters[0]!.key)).statusCode).toBe(200)
    const anonymous = await t.app.inject({ method: 'GET', url: '/v1/events' })
    expect(anonymous.statusCode).toBe(401)
  })

  it.runIf(servers)('never skips an event a slower transaction commits after a later one', async () => {
    const { cursor: start } = await readAll()
    const domain = await t.createDomain(registrar.key)
    const { cursor: before } = await readUntil(start, [domain.did], 1)
    const side = await openAppDatabase(t.config)
    let release!: () => void
    const held = new Promise<void>((resolve) => { release = resolve })
    let inserted!: () => void
    const insertDone = new Promise<void>((resolve) => { inserted = resolve })
    const slow = side.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('domain_events')
        .values({
          domain_did: domain.did,
          event: 'updated',
          from_status: 'draft',
          to_status: 'draft',
          actor_kind: 'system',
          at: new Date()
        })
        .execute()
      inserted()
      await held
    })
    try {
      await insertDone
      const later = await t.createDomain(registrar.key)
      const whileOpen = await readAll(before)
      expect(whileOpen.items.map((e) => e.domainDid)).not.toContain(later.did)
      release()
      await slow
      const after = await readUntil(whileOpen.cursor, [domain.did, later.did], 2)
      expect(after.items.map((e) => [e.domainDid, e.event])).toEqual([[domain.did, 'updated'], [later.did, 'created']])
    } finally {
      release()
      await slow.catch(() => {})
      await side.close()
    }
  })

  it('is in the OpenAPI document', async () => {
    const spec = (await t.app.inject({ method: 'GET', url: '/docs/json' })).json()
    const route = spec.paths['/v1/events'].get
    expect(route.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['after', 'types', 'limit'])
    )
    expect(Object.keys(route.responses)).toEqual(expect.arrayContaining(['200', '400', '401']))
  })
})
