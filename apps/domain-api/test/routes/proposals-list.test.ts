import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { castVote, createProposal, withCouncil } from '../governance.ts'
import { startApp, type TestApp } from '../helper.ts'

const HOUR = 3_600_000
type Key = { id: string, key: string, account: string }
let t: TestApp
let officer: Key
let voters: Key[]

beforeAll(async () => {
  t = await startApp()
  officer = await t.issueKey(['registrar', 'compliance'])
  voters = await Promise.all(Array.from({ length: 4 }, async () => await t.issueKey(['voter'])))
})
afterAll(async () => { await t?.close() })

const list = async (url: string, key = voters[0]!.key) => {
  const res = await t.app.inject({ method: 'GET', url, headers: t.auth(key) })
  expect(res.statusCode, res.body).toBe(200)
  return res.json() as { items: Array<Record<string, any>>, nextCursor: string | null }
}
const ids = (page: { items: Array<Record<string, any>> }) => page.items.map((p) => p.id)
const open = async (council: Key[]) => {
  const did = (await t.createDomain(officer.key)).did
  t.clock.advance(1000)
  return { did, ...(await createProposal(t, did, officer.key, withCouncil(council))) }
}

describe('GET /v1/verification-proposals', () => {
  it('lists what the caller may vote on and has not voted on yet (status=open&voter=me&voted=false)', async () => {
    const mine = await open(voters.slice(0, 3))
    const notMine = await open(voters.slice(1, 4))
    const done = await open(voters.slice(0, 3))
    await castVote(t, done.id, voters[0]!.key)
    const late = await t.issueKey(['voter'])

    const todo = await list('/v1/verification-proposals?status=open&voter=me&voted=false')
    expect(ids(todo)).toContain(mine.id)
    expect(ids(todo)).not.toContain(notMine.id)
    expect(ids(todo)).not.toContain(done.id)
    expect(todo.items.find((p) => p.id === mine.id)).toMatchObject({
      domainDid: mine.did, status: 'open', electorate: { source: 'council', size: 3 }, tally: { total: 0 }
    })
    expect(todo.items[0]).not.toHaveProperty('votes')
    expect(ids(await list('/v1/verification-proposals?voter=me&voted=true'))).toEqual([done.id])
    expect(ids(await list('/v1/verification-proposals?voter=me'))).toEqual(expect.arrayContaining([mine.id, done.id]))
    expect(ids(await list(`/v1/verification-proposals?voter=${voters[3]!.account}`, officer.key)))
      .toContain(notMine.id)
    expect((await list('/v1/verification-proposals?voter=me', late.key)).items).toEqual([])
  })

  it('shows proposals whose period ended as closed', async () => {
    const ending = await open(voters.slice(0, 3))
    t.clock.advance(HOUR)
    expect(ids(await list('/v1/verification-proposals?status=open&voter=me'))).not.toContain(ending.id)
    expect(ids(await list('/v1/verification-proposals?status=rejected'))).toContain(ending.id)
  })

  it('pages newest first with a cursor', async () => {
    const made = [] as string[]
    for (let i = 0; i < 5; i++) made.push((await open(voters.slice(0, 3))).id)
    const seen: string[] = []
    let url = '/v1/verification-proposals?status=open&limit=2'
    for (;;) {
      const page = await list(url)
      expect(page.items.length).toBeLessThanOrEqual(2)
      seen.push(...ids(page))
      if (page.nextCursor === null) break
      url = `/v1/verification-proposals?status=open&limit=2&cursor=${page.nextCursor}`
    }
    expect(seen.filter((id) => made.includes(id))).toEqual([...made].reverse())
    expect(new Set(seen).size).toBe(seen.length)
  })

  it('validates its query', async () => {
    const bad = async (query: string) =>
      await t.app.inject({ method: 'GET', url: `/v1/verification-proposals?${query}`, headers: t.auth(officer.key) })
    expect((await bad('voted=false')).json()).toMatchObject({ statusCode: 400, code: 'DOMAIN_INVALID_REQUEST' })
    expect((await bad('status=maybe')).statusCode).toBe(400)
    expect((await bad('voter=someone')).statusCode).toBe(400)
    expect((await bad('cursor=bm9wZQ')).json().code).toBe('DOMAIN_INVALID_CURSOR')
    expect((await t.app.inject({ method: 'GET', url: '/v1/verification-proposals' })).statusCode).toBe(401)
  })
})

describe('GET /v1/domains/:did/verification-proposals', () => {
  it('lists one domain\'s proposals, newest first, with the same filters', async () => {
    const first = await open(voters.slice(0, 3))
    t.clock.advance(HOUR)
    const second = await createProposal(t, first.did, officer.key, withCouncil(voters.slice(1, 4)))
    await open(voters.slice(0, 3))
    const all = await list(`/v1/domains/${first.did}/verification-proposals`)
    expect(all.items.map((p) => [p.id, p.status])).toEqual([[second.id, 'open'], [first.id, 'rejected']])
    expect(ids(await list(`/v1/domains/${first.did}/verification-proposals?voter=me`))).toEqual([first.id])
    const unknown = await t.app.inject({
      method: 'GET',
      url: '/v1/domains/did:ixo:entity:00000000000000000000000000000000/verification-proposals',
      headers: t.auth(officer.key)
    })
    expect(unknown.statusCode).toBe(404)
    expect(unknown.json().code).toBe('DOMAIN_NOT_FOUND')
  })

  it('is documented in the OpenAPI document with its filters', async () => {
    const spec = (await t.app.inject({ method: 'GET', url: '/docs/json' })).json()
    for (const path of ['/v1/verification-proposals', '/v1/domains/{did}/verification-proposals']) {
      const params = spec.paths[path].get.parameters.map((p: { name: string }) => p.name)
      expect(params).toEqual(expect.arrayContaining(['status', 'voter', 'voted', 'limit', 'cursor']))
    }
  })
})
