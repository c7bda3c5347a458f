import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issueGovernance } from '../governance.ts'
import { PROTOCOL, randomAccount, startApp, type TestApp } from '../helper.ts'
import { startProgramme, stoveOf, type Programme } from '../programme.ts'

const OTHER_PROTOCOL = 'did:ixo:protocol/other-stoves'

let t: TestApp
let registrar: { key: string, account: string }

beforeAll(async () => {
  t = await startApp()
  registrar = await t.issueKey(['registrar'], randomAccount())
})
afterAll(async () => { await t?.close() })

const stove = (externalId: string, extra: Record<string, unknown> = {}) =>
  ({ type: 'Asset', class: PROTOCOL, externalId, metadata: { name: `Stove ${externalId}` }, ...extra })
const create = (payload: object, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: '/v1/domains', headers: { ...t.auth(registrar.key), ...headers }, payload })
const search = async (query: string) => {
  const res = await t.app.inject({ method: 'GET', url: `/v1/domains?${query}`, headers: t.auth(registrar.key) })
  expect(res.statusCode).toBe(200)
  return (res.json().items as Array<{ did: string, externalId: string | null }>)
}

describe('externalId on POST /v1/domains', () => {
  it('keeps the serial on the record and finds the domain by it', async () => {
    const res = await create(stove('SN-0001'))
    expect(res.statusCode).toBe(201)
    expect(res.json()).toMatchObject({ externalId: 'SN-0001', type: 'asset/device' })
    const found = await search('externalId=SN-0001')
    expect(found.map((d) => d.did)).toEqual([res.json().did])
    expect(await search('externalId=SN-0002')).toEqual([])
    const read = await t.app.inject({
      method: 'GET', url: `/v1/domains/${res.json().did}`, headers: t.auth(registrar.key)
    })
    expect(read.json().externalId).toBe('SN-0001')
  })

  it('refuses a second domain of the same class under the same serial, naming the first', async () => {
    const first = await create(stove('SN-0100'))
    const again = await create(stove('SN-0100', { metadata: { name: 'another' } }))
    expect(again.statusCode).toBe(409)
    expect(again.json()).toMatchObject({ code: 'DOMAIN_EXTERNAL_ID_TAKEN' })
    expect(again.json().message).toContain(first.json().did)
    expect(await search('externalId=SN-0100')).toHaveLength(1)
  })

  it('refuses one of two parallel registrations of one serial', async () => {
    const answers = await Promise.all([create(stove('SN-0200')), create(stove('SN-0200'))])
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 409])
  })

  it('allows the same serial in another class, and domains without one', async () => {
    expect((await create(stove('SN-0300'))).statusCode).toBe(201)
    expect((await create(stove('SN-0300', { class: OTHER_PROTOCOL }))).statusCode).toBe(201)
    const plain = await create({ type: 'Asset', class: PROTOCOL })
    expect(plain.statusCode).toBe(201)
    expect(plain.json().externalId).toBeNull()
    expect((await create({ type: 'Asset', class: PROTOCOL })).statusCode).toBe(201)
  })

  it('replays an idempotent retry instead of calling the serial taken', async () => {
    const first = await create(stove('SN-0400'), { 'idempotency-key': 'stove-0400' })
    const retry = await create(stove('SN-0400'), { 'idempotency-key': 'stove-0400' })
    expect(retry.statusCode).toBe(201)
    expect(retry.headers['idempotent-replayed']).toBe('true')
    expect(retry.json().did).toBe(first.json().did)
  })

  it('refuses a serial with spaces or over 128 characters', async () => {
    expect((await create(stove('SN 1'))).statusCode).toBe(400)
    expect((await create(stove('S'.repeat(129)))).statusCode).toBe(400)
  })

  it('filters GraphQL domains by externalId', async () => {
    const created = await create(stove('SN-0500'))
    const res = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: t.auth(registrar.key),
      payload: { query: '{ domains(filter: { externalId: "SN-0500" }) { edges { node { did externalId } } } }' }
    })
    expect(res.json().data.domains.edges).toEqual([{ node: { did: created.json().did, externalId: 'SN-0500' } }])
  })
})

describe('externalId within an organisation', () => {
  let programme: Programme
  let otherProgramme: Programme
  beforeAll(async () => {
    const keys = await issueGovernance(t)
    registrar = keys.registrar
    programme = await startProgramme(t, keys)
    otherProgramme = await startProgramme(t, keys)
  }, 60_000)

  it('is unique per type across the organisation\'s classes and projects, naming the holder', async () => {
    const first = await create(stoveOf(programme, 'ORG-1'))
    expect(first.statusCode).toBe(201)
    const sibling = await t.createDomain(registrar.key, {
      class: OTHER_PROTOCOL, links: { organisation: programme.organisation }
    })
    const again = await create(stoveOf(programme, 'ORG-1', { class: OTHER_PROTOCOL, links: { parent: sibling.did } }))
    expect(again.statusCode).toBe(409)
    expect(again.json().code).toBe('DOMAIN_EXTERNAL_ID_TAKEN')
    expect(again.json().message).toContain(first.json().did)
    expect(again.json().message).toContain(programme.organisation)
  })

  it('allows the serial in another organisation and for another type, and finds each by organisation', async () => {
    const mine = await create(stoveOf(programme, 'ORG-2'))
    const theirs = await create(stoveOf(otherProgramme, 'ORG-2'))
    const oracle = await create({
      type: 'Oracle', class: PROTOCOL, externalId: 'ORG-2', links: { parent: programme.project }
    })
    expect([mine.statusCode, theirs.statusCode, oracle.statusCode]).toEqual([201, 201, 201])
    expect((await search('externalId=ORG-2')).map((d) => d.did).sort())
      .toEqual([mine.json().did, theirs.json().did, oracle.json().did].sort())
    expect((await search(`externalId=ORG-2&organisation=${otherProgramme.organisation}`)).map((d) => d.did))
      .toEqual([theirs.json().did])
    expect((await search(`externalId=ORG-2&organisation=${programme.organisation}&type=asset/device`))
      .map((d) => d.did)).toEqual([mine.json().did])
  })
})
