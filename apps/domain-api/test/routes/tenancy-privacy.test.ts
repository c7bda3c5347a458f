import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { castVote, createProposal, withCouncil } from '../governance.ts'
import { ADMIN_KEY, startApp, type TestApp } from '../helper.ts'
import { call, member, organisation, type TenantKey } from '../tenants.ts'
import { startReceiver, waitFor } from '../webhook-receiver.ts'

const FAST = { WEBHOOK_POLL_INTERVAL_MS: '20', WEBHOOK_RETRY_BASE_MS: '20', WEBHOOK_RETRY_MAX_MS: '100' }
const PHONE = '+254700123456'
const STOVE = { name: 'Stove 7', private: { householdPhone: PHONE, gps: [-0.09, 34.76] } }

let t: TestApp
let office: { key: string }
let orgA: string
let orgB: string
let registrarA: TenantKey
let readerA: TenantKey
let registrarB: TenantKey

beforeAll(async () => {
  t = await startApp(FAST)
  office = await t.issueKey(['registrar'])
  orgA = await organisation(t, office.key, 'Stove Makers A')
  orgB = await organisation(t, office.key, 'Stove Makers B')
  registrarA = await member(t, orgA, ['registrar'])
  readerA = await member(t, orgA, ['reader'])
  registrarB = await member(t, orgB, ['registrar'])
}, 60_000)
afterAll(async () => { await t?.close() })

const metadataAs = async (key: string, did: string) => (await call(t, key, 'GET', `/v1/domains/${did}`)).json().metadata
const graphql = async (key: string, query: string, variables: Record<string, unknown>) =>
  (await call(t, key, 'POST', '/graphql', { query, variables })).json()

describe('private metadata', () => {
  it('is read by the domain\'s organisation, controllers and platform admins; others get the public part', async () => {
    const household = await member(t, null, ['reader'])
    const device = await t.createDomain(registrarA.key,
      { type: 'Device', metadata: STOVE, onBehalfOf: household.account })
    expect(device.metadata).toEqual(STOVE)
    for (const key of [readerA.key, household.key, ADMIN_KEY]) expect(await metadataAs(key, device.did)).toEqual(STOVE)
    const platformReader = await t.issueKey(['reader'])
    for (const key of [registrarB.key, platformReader.key]) {
      expect(await metadataAs(key, device.did)).toEqual({ name: 'Stove 7' })
    }

    // A controller of another organisation reads what that organisation's outsiders read.
    const shared = await t.createDomain(registrarA.key,
      { type: 'Device', metadata: STOVE, controllers: [registrarB.account] })
    expect(await metadataAs(registrarB.key, shared.did)).toEqual({ name: 'Stove 7' })

    const search = await call(t, registrarB.key, 'GET', `/v1/domains?organisation=${orgA}&type=Device`)
    expect(search.json().items.map((d: { metadata: unknown }) => d.metadata))
      .toEqual([{ name: 'Stove 7' }, { name: 'Stove 7' }])
    const own = await call(t, readerA.key, 'GET', `/v1/domains?organisation=${orgA}&type=Device`)
    expect(own.json().items.map((d: { metadata: unknown }) => d.metadata)).toEqual([STOVE, STOVE])
    const documented = await t.app.inject({ url: `/1.0/identifiers/${device.did}` })
    expect(documented.body).not.toContain(PHONE)
  })

  it('applies in GraphQL too, to root fields and to domains reached through links and proposals', async () => {
    const project = await t.createDomain(registrarA.key, { metadata: { name: 'P', private: { budget: 1200 } } })
    const device = await t.createDomain(registrarA.key,
      { type: 'Device', metadata: STOVE, links: { parent: project.did } })
    const query = `query ($did: ID!, $org: String) {
      domain(did: $did) { metadata links { relationship domain { metadata } } }
      domains(filter: { organisation: $org, type: "Device" }, first: 100) { edges { node { did metadata } } }
    }`
    const asB = await graphql(registrarB.key, query, { did: device.did, org: orgA })
    expect(asB.data.domain.metadata).toEqual({ name: 'Stove 7' })
    expect(asB.data.domain.links.find((l: any) => l.relationship === 'parent').domain.metadata).toEqual({ name: 'P' })
    expect(JSON.stringify(asB)).not.toContain(PHONE)
    const asA = await graphql(readerA.key, query, { did: device.did, org: orgA })
    expect(asA.data.domain.metadata).toEqual(STOVE)
    expect(asA.data.domain.links.find((l: any) => l.relationship === 'parent').domain.metadata.private)
      .toEqual({ budget: 1200 })
    expect(asA.data.domains.edges.find((e: any) => e.node.did === device.did).node.metadata).toEqual(STOVE)
  })

  it('is read by governance: compliance, and the voters of the domain\'s proposals only', async () => {
    const compliance = await t.issueKey(['compliance'])
    const council = await Promise.all([1, 2, 3].map(async () => await t.issueKey(['voter'])))
    const outsider = await t.issueKey(['voter'])
    const device = await t.createDomain(registrarA.key, { type: 'Device', metadata: STOVE })
    expect(await metadataAs(compliance.key, device.did)).toEqual(STOVE)
    expect(await metadataAs(council[0]!.key, device.did)).toEqual({ name: 'Stove 7' })
    const proposal = await createProposal(t, device.did, compliance.key, withCouncil(council))
    expect(await metadataAs(council[0]!.key, device.did)).toEqual(STOVE)
    expect(await metadataAs(outsider.key, device.did)).toEqual({ name: 'Stove 7' })
    const viaProposal = await graphql(council[1]!.key,
      'query ($id: ID!) { verificationProposal(id: $id) { domain { metadata } } }', { id: proposal.id })
    expect(viaProposal.data.verificationProposal.domain.metadata).toEqual(STOVE)
    await castVote(t, proposal.id, council[0]!.key)
  })

  it('stays out of proposal snapshots and history, which say only that it changed', async () => {
    const compliance = await t.issueKey(['compliance'])
    const council = await Promise.all([1, 2, 3].map(async () => await t.issueKey(['voter'])))
    const device = await t.createDomain(registrarA.key, { type: 'Device', metadata: STOVE })
    const proposal = await createProposal(t, device.did, compliance.key, withCouncil(council))
    const read = await call(t, registrarB.key, 'GET', `/v1/verification-proposals/${proposal.id}`)
    expect(read.json().snapshot.content.metadata).toEqual({ name: 'Stove 7' })
    expect(read.body).not.toContain(PHONE)

    const moved = { ...STOVE, private: { householdPhone: '+254700999999', gps: [-0.1, 34.7] } }
    const patched = await call(t, registrarA.key, 'PATCH', `/v1/domains/${device.did}`, { metadata: moved })
    expect(patched.statusCode).toBe(200)
    for (const key of [registrarB.key, readerA.key]) {
      const history = await call(t, key, 'GET', `/v1/domains/${device.did}/history`)
      expect(history.body).not.toContain(PHONE)
      expect(history.body).not.toContain('+254700999999')
      const change = history.json().items.find((entry: { details?: { changes?: { metadata?: unknown } } }) =>
        entry.details?.changes?.metadata !== undefined)
      expect(change?.details.changes.metadata).toEqual({
        before: { name: 'Stove 7' }, after: { name: 'Stove 7' }, privateChanged: true
      })
    }
  })

  it('must be an object', async () => {
    const res = await call(t, registrarA.key, 'POST', '/v1/domains',
      { type: 'Device', class: 'did:ixo:protocol/clean-cooking', metadata: { private: 'phone' } })
    expect([res.statusCode, res.json().code]).toEqual([400, 'FST_ERR_VALIDATION'])
  })
})

describe('webhooks of an organisation', () => {
  it('get their organisation\'s events only, and no hook gets private metadata', async () => {
    const adminA = await member(t, orgA, ['admin'])
    const [ofA, ofPlatform] = [await startReceiver(), await startReceiver()]
    const hookA = (await call(t, adminA.key, 'POST', '/v1/webhooks', { url: ofA.url, events: ['*'] })).json()
    const hookP = (await call(t, ADMIN_KEY, 'POST', '/v1/webhooks', { url: ofPlatform.url, events: ['*'] })).json()
    try {
      expect([hookA.organisation, hookP.organisation]).toEqual([orgA, null])
      const inA = await t.createDomain(registrarA.key, { type: 'Device', metadata: STOVE })
      const inB = await t.createDomain(registrarB.key, { type: 'Device', metadata: STOVE })
      for (const [key, did] of [[registrarA.key, inA.did], [registrarB.key, inB.did]] as const) {
        const changed = { ...STOVE, private: { householdPhone: `${PHONE}9` } }
        expect((await call(t, key, 'PATCH', `/v1/domains/${did}`, { metadata: changed })).statusCode).toBe(200)
      }
      const dids = (received: Array<{ body: string }>) => received.map((r) => JSON.parse(r.body).domainDid)
      await waitFor(() => dids(ofPlatform.received).filter((d) => d === inB.did).length === 2, 'the B events')
      await waitFor(() => dids(ofA.received).filter((d) => d === inA.did).length === 2, 'the A events')
      expect(dids(ofA.received)).not.toContain(inB.did)
      expect(dids(ofPlatform.received)).toEqual(expect.arrayContaining([inA.did, inB.did]))
      for (const { body } of [...ofA.received, ...ofPlatform.received]) expect(body).not.toContain(PHONE)

      const listed = (await call(t, adminA.key, 'GET', '/v1/webhooks')).json().items
      expect(listed.map((h: { id: string }) => h.id)).toEqual([hookA.id])
      const other = await call(t, adminA.key, 'GET', `/v1/webhooks/${hookP.id}/deliveries`)
      expect([other.statusCode, other.json().code]).toEqual([404, 'DOMAIN_WEBHOOK_NOT_FOUND'])
    } finally {
      for (const id of [hookA.id, hookP.id]) await call(t, ADMIN_KEY, 'DELETE', `/v1/webhooks/${id}`)
      await Promise.all([ofA.shut(), ofPlatform.shut()])
    }
  })
})
