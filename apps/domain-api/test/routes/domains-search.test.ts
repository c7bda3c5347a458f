import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issueGovernance, voteThrough, type Governance } from '../governance.ts'
import { startApp, type TestApp } from '../helper.ts'
import { startProgramme, stoveOf, type Programme } from '../programme.ts'

let t: TestApp
let keys: Governance
let north: Programme
let south: Programme
/** DIDs by serial. */
const stoves = new Map<string, string>()

interface Listed { did: string, externalId: string | null, createdAt: string, updatedAt: string, usable: boolean }
interface Page { items: Listed[], nextCursor: string | null }

beforeAll(async () => {
  t = await startApp()
  keys = await issueGovernance(t)
  north = await startProgramme(t, keys)
  south = await startProgramme(t, keys)
  // Twelve stoves in the north, registered together (one creation time: ties broken by DID), three in the south.
  const batch = await t.app.inject({
    method: 'POST',
    url: '/v1/domains/batch',
    headers: t.auth(keys.registrar.key),
    payload: { items: Array.from({ length: 12 }, (_, i) => stoveOf(north, `KSM-${String(i).padStart(4, '0')}`)) }
  })
  expect(batch.json().created).toBe(12)
  for (const item of batch.json().items) stoves.set(item.externalId, item.did)
  for (const serial of ['NRB_01', 'NRBX01', 'NRB%02']) {
    t.clock.advance(1000)
    stoves.set(serial, (await t.createDomain(keys.registrar.key, stoveOf(south, serial))).did)
  }
}, 120_000)
afterAll(async () => { await t?.close() })

async function list (query: string): Promise<Page> {
  const res = await t.app.inject({ method: 'GET', url: `/v1/domains?${query}`, headers: t.auth(keys.registrar.key) })
  expect(res.statusCode, res.body).toBe(200)
  return res.json() as Page
}

/** Every page of a listing, following nextCursor. */
async function all (query: string, limit = 5): Promise<Listed[]> {
  const seen: Listed[] = []
  let cursor: string | null = null
  do {
    const page = await list(`${query}&limit=${limit}${cursor !== null ? `&cursor=${cursor}` : ''}`)
    expect(page.items.length).toBeLessThanOrEqual(limit)
    seen.push(...page.items)
    cursor = page.nextCursor
  } while (cursor !== null)
  return seen
}

const serials = (items: Listed[]) => items.map((d) => d.externalId)
const touch = async (serial: string) => {
  t.clock.advance(1000)
  const res = await t.app.inject({
    method: 'PATCH',
    url: `/v1/domains/${stoves.get(serial)}`,
    headers: t.auth(keys.registrar.key),
    payload: { metadata: { name: `Stove ${serial}`, serviced: true } }
  })
  expect(res.statusCode).toBe(200)
}

describe('GET /v1/domains filters', () => {
  it('filters by organisation, project, type and externalId prefix (matched literally)', async () => {
    expect(await all(`organisation=${north.organisation}&type=Device`)).toHaveLength(12)
    expect(serials(await all(`project=${south.project}`))).toEqual(['NRB%02', 'NRBX01', 'NRB_01'])
    expect(serials(await all('externalIdPrefix=NRB_'))).toEqual(['NRB_01'])
    expect(serials(await all('externalIdPrefix=NRB%25'))).toEqual(['NRB%02'])
    expect(await all('externalIdPrefix=KSM-001')).toHaveLength(2)
    expect(await all(`externalIdPrefix=KSM-&organisation=${south.organisation}`)).toEqual([])
    const projects = await all(`organisation=${north.organisation}&type=project`)
    expect(projects.map((d) => d.did)).toEqual([north.project])
  })

  it('filters by usable and status once a stove is verified', async () => {
    expect(await all(`project=${north.project}&usable=true`)).toEqual([])
    const verified = stoves.get('KSM-0003')!
    await voteThrough(t, verified, keys.compliance, keys.voters)
    expect((await all(`project=${north.project}&usable=true`)).map((d) => d.did)).toEqual([verified])
    expect(await all(`project=${north.project}&usable=false`)).toHaveLength(11)
    expect((await all(`project=${north.project}&status=verified`)).map((d) => d.did)).toEqual([verified])
  })

  it('lists what changed since a time, oldest change first, across pages', async () => {
    const since = t.clock.at(1)
    await touch('KSM-0007')
    await touch('NRBX01')
    await touch('KSM-0001')
    expect(serials(await all(`updatedSince=${encodeURIComponent(since)}&sort=updatedAt&order=asc`, 2)))
      .toEqual(['KSM-0007', 'NRBX01', 'KSM-0001'])
    expect(serials(await all(`updatedSince=${encodeURIComponent(since)}&sort=updatedAt`, 2)))
      .toEqual(['KSM-0001', 'NRBX01', 'KSM-0007'])
  })
})

describe('GET /v1/domains sorts and cursors', () => {
  it('pages every sort and order completely, in order, without repeats', async () => {
    const scope = `organisation=${north.organisation}&type=asset/device`
    const byCreation = await all(`${scope}&sort=createdAt&order=asc`, 5)
    expect(byCreation).toHaveLength(12)
    const key = (d: Listed, at: string) => `${at}|${d.did}`
    expect(byCreation.map((d) => key(d, d.createdAt))).toEqual(byCreation.map((d) => key(d, d.createdAt)).sort())
    const newest = await all(`${scope}`, 5)
    expect(newest.map((d) => d.did)).toEqual(byCreation.map((d) => d.did).reverse())
    for (const order of ['asc', 'desc']) {
      const updated = await all(`${scope}&sort=updatedAt&order=${order}`, 3)
      expect(new Set(updated.map((d) => d.did)).size).toBe(12)
      const keys = updated.map((d) => key(d, d.updatedAt))
      const sorted = [...keys].sort()
      expect(keys).toEqual(order === 'asc' ? sorted : sorted.reverse())
    }
  })

  it('refuses a cursor issued for another order', async () => {
    const page = await list(`organisation=${north.organisation}&sort=updatedAt&order=asc&limit=2`)
    expect(page.nextCursor).not.toBeNull()
    for (const other of ['sort=createdAt', 'sort=updatedAt&order=desc', 'sort=createdAt&order=asc']) {
      const res = await t.app.inject({
        method: 'GET',
        url: `/v1/domains?organisation=${north.organisation}&${other}&cursor=${page.nextCursor}`,
        headers: t.auth(keys.registrar.key)
      })
      expect(res.statusCode, other).toBe(400)
      expect(res.json().code).toBe('DOMAIN_INVALID_CURSOR')
    }
    const bad = await t.app.inject({
      method: 'GET', url: '/v1/domains?sort=name', headers: t.auth(keys.registrar.key)
    })
    expect(bad.statusCode).toBe(400)
  })
})

describe('GraphQL domains filters and sorts', () => {
  it('filters by organisation, project, prefix and usable, and pages by update time', async () => {
    const query = `query ($filter: DomainFilter, $after: String) {
      domains(filter: $filter, first: 4, after: $after, sort: updatedAt, order: asc) {
        edges { node { did externalId organisation project usable } }
        pageInfo { hasNextPage endCursor }
      }
    }`
    const filter = { organisation: north.organisation, project: north.project, externalIdPrefix: 'KSM-' }
    const nodes: Array<Record<string, unknown>> = []
    let after: string | null = null
    do {
      const res: { statusCode: number, body: string, json: () => any } = await t.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: t.auth(keys.registrar.key),
        payload: { query, variables: { filter, after } }
      })
      expect(res.statusCode, res.body).toBe(200)
      const { edges, pageInfo } = res.json().data.domains as {
        edges: Array<{ node: Record<string, unknown> }>
        pageInfo: { hasNextPage: boolean, endCursor: string }
      }
      nodes.push(...edges.map((e) => e.node))
      after = pageInfo.hasNextPage ? pageInfo.endCursor : null
    } while (after !== null)
    const rest = await all(`organisation=${north.organisation}&externalIdPrefix=KSM-&sort=updatedAt&order=asc`)
    expect(nodes.map((n) => n.did)).toEqual(rest.map((d) => d.did))
    expect(nodes[0]).toMatchObject({ organisation: north.organisation, project: north.project })

    const usable = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: t.auth(keys.registrar.key),
      payload: {
        query: `{ domains(filter: { usable: true, project: "${north.project}" }) { edges { node { did } } } }`
      }
    })
    expect(usable.json().data.domains.edges).toEqual([{ node: { did: stoves.get('KSM-0003') } }])
  })
})
