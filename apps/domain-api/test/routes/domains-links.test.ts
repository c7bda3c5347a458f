import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issueGovernance, verifiedProtocol, voteThrough, type Governance } from '../governance.ts'
import { PROTOCOL, startApp, type TestApp } from '../helper.ts'
import { startProgramme, stoveOf, type Programme } from '../programme.ts'

let t: TestApp
let keys: Governance
let programme: Programme

beforeAll(async () => {
  t = await startApp()
  keys = await issueGovernance(t)
  programme = await startProgramme(t, keys)
}, 60_000)
afterAll(async () => { await t?.close() })

const post = (payload: object, app = t) => app.app.inject({
  method: 'POST', url: '/v1/domains', headers: app.auth(keys.registrar.key), payload
})
const patch = (did: string, payload: object) => t.app.inject({
  method: 'PATCH', url: `/v1/domains/${did}`, headers: t.auth(keys.registrar.key), payload
})
const deactivate = async (did: string) => {
  const res = await t.app.inject({
    method: 'POST', url: `/v1/domains/${did}/deactivate`, headers: t.auth(keys.registrar.key)
  })
  expect(res.statusCode).toBe(200)
}
const refusal = (res: { statusCode: number, json: () => any }) =>
  ({ status: res.statusCode, code: res.json().code, fields: res.json().details?.map((d: any) => d.field) })
const unknownDid = 'did:ixo:entity:0000000000000000000000000000dead'

describe('links checked on POST /v1/domains', () => {
  it('places a device in its project and the project\'s organisation, both still drafts', async () => {
    const res = await post(stoveOf(programme, 'LNK-1'))
    expect(res.statusCode).toBe(201)
    expect(res.json()).toMatchObject({
      type: 'asset/device',
      class: programme.protocol,
      links: { parent: programme.project },
      project: programme.project,
      organisation: programme.organisation
    })
    const project = await t.app.inject({
      method: 'GET', url: `/v1/domains/${programme.project}`, headers: t.auth(keys.registrar.key)
    })
    expect(project.json()).toMatchObject({ organisation: programme.organisation, project: null, status: 'draft' })
  })

  it('refuses a parent or organisation the registry does not hold', async () => {
    expect(refusal(await post(stoveOf(programme, 'LNK-2', { links: { parent: unknownDid } }))))
      .toEqual({ status: 422, code: 'DOMAIN_LINK_NOT_FOUND', fields: ['/links/parent'] })
    const foreign = await post(stoveOf(programme, 'LNK-2', { links: { parent: 'did:web:stoves.example.org' } }))
    expect(refusal(foreign)).toEqual({ status: 422, code: 'DOMAIN_LINK_NOT_FOUND', fields: ['/links/parent'] })
    const project = await post({ type: 'Project', class: programme.protocol, links: { organisation: unknownDid } })
    expect(refusal(project)).toEqual({ status: 422, code: 'DOMAIN_LINK_NOT_FOUND', fields: ['/links/organisation'] })
  })

  it('refuses a deactivated or expired parent', async () => {
    const closed = await t.createDomain(keys.registrar.key, {
      class: programme.protocol, links: { organisation: programme.organisation }
    })
    await deactivate(closed.did)
    const res = await post(stoveOf(programme, 'LNK-3', { links: { parent: closed.did } }))
    expect(refusal(res)).toEqual({ status: 422, code: 'DOMAIN_LINK_NOT_USABLE', fields: ['/links/parent'] })
    expect(res.json().message).toContain('deactivated')

    const ending = await t.createDomain(keys.registrar.key, {
      class: programme.protocol, validUntil: t.clock.at(60_000)
    })
    t.clock.advance(61_000)
    const late = await post(stoveOf(programme, 'LNK-3', { links: { parent: ending.did } }))
    expect(refusal(late)).toEqual({ status: 422, code: 'DOMAIN_LINK_NOT_USABLE', fields: ['/links/parent'] })
    expect(late.json().message).toContain('expired')
  })

  it('refuses links of the wrong type', async () => {
    const underOrganisation = await post(stoveOf(programme, 'LNK-4', { links: { parent: programme.organisation } }))
    expect(refusal(underOrganisation))
      .toEqual({ status: 422, code: 'DOMAIN_LINK_TYPE_MISMATCH', fields: ['/links/parent'] })
    const projectInProject = await post({
      type: 'Project', class: programme.protocol, links: { parent: programme.project }
    })
    expect(refusal(projectInProject))
      .toEqual({ status: 422, code: 'DOMAIN_LINK_TYPE_MISMATCH', fields: ['/links/parent'] })
    const projectAsOrganisation = await post(stoveOf(programme, 'LNK-4', {
      links: { parent: programme.project, organisation: programme.project }
    }))
    expect(refusal(projectAsOrganisation))
      .toEqual({ status: 422, code: 'DOMAIN_LINK_TYPE_MISMATCH', fields: ['/links/organisation'] })
  })

  it('refuses an organisation other than the parent\'s, and accepts the same one', async () => {
    const other = await t.createDomain(keys.registrar.key, { type: 'Organisation' })
    const res = await post(stoveOf(programme, 'LNK-5', {
      links: { parent: programme.project, organisation: other.did }
    }))
    expect(refusal(res)).toEqual({ status: 422, code: 'DOMAIN_LINK_MISMATCH', fields: ['/links/organisation'] })
    const same = await post(stoveOf(programme, 'LNK-5', {
      links: { parent: programme.project, organisation: programme.organisation }
    }))
    expect(same.statusCode).toBe(201)
    expect(same.json().organisation).toBe(programme.organisation)
  })
})

describe('the class checked on POST /v1/domains', () => {
  it('refuses a protocol of the registry that is not verified, naming the field sent', async () => {
    const draft = await t.createDomain(keys.registrar.key, { type: 'Protocol' })
    expect(refusal(await post(stoveOf(programme, 'CLS-1', { class: draft.did }))))
      .toEqual({ status: 422, code: 'DOMAIN_CLASS_NOT_USABLE', fields: ['/class'] })
    const { class: _class, ...asProtocol } = stoveOf(programme, 'CLS-1')
    const res = await post({ ...asProtocol, protocol: draft.did })
    expect(refusal(res)).toEqual({ status: 422, code: 'DOMAIN_CLASS_NOT_USABLE', fields: ['/protocol'] })
    expect(res.json().message).toContain('draft')
  })

  it('refuses a verified protocol once deactivated or expired', async () => {
    const retired = await verifiedProtocol(t, keys)
    expect((await post(stoveOf(programme, 'CLS-2', { class: retired }))).statusCode).toBe(201)
    await deactivate(retired)
    expect(refusal(await post(stoveOf(programme, 'CLS-3', { class: retired }))))
      .toEqual({ status: 422, code: 'DOMAIN_CLASS_NOT_USABLE', fields: ['/class'] })

    const { did: lapsing } = await t.createDomain(keys.registrar.key, {
      type: 'Protocol', validUntil: t.clock.at(3_600_000)
    })
    await voteThrough(t, lapsing, keys.compliance, keys.voters)
    expect((await post(stoveOf(programme, 'CLS-4', { class: lapsing }))).statusCode).toBe(201)
    t.clock.advance(3_600_001)
    const res = await post(stoveOf(programme, 'CLS-5', { class: lapsing }))
    expect(refusal(res)).toEqual({ status: 422, code: 'DOMAIN_CLASS_NOT_USABLE', fields: ['/class'] })
    expect(res.json().message).toContain('expired')
  })

  it('refuses an entity DID the registry does not hold, and a domain that is not a protocol', async () => {
    expect(refusal(await post(stoveOf(programme, 'CLS-6', { class: unknownDid }))))
      .toEqual({ status: 422, code: 'DOMAIN_CLASS_NOT_FOUND', fields: ['/class'] })
    expect(refusal(await post(stoveOf(programme, 'CLS-6', { class: programme.project }))))
      .toEqual({ status: 422, code: 'DOMAIN_CLASS_NOT_PROTOCOL', fields: ['/class'] })
  })

  it('accepts an outside class only by an allowed DID method', async () => {
    expect((await post({ type: 'Project', class: PROTOCOL })).statusCode).toBe(201)
    const web = await post({ type: 'Project', class: 'did:web:evil.example.com' })
    expect(refusal(web)).toEqual({ status: 422, code: 'DOMAIN_CLASS_METHOD_NOT_ALLOWED', fields: ['/class'] })
    expect(web.json().message).toContain('did:ixo')

    const webOnly = await startApp({ DOMAIN_EXTERNAL_CLASS_METHODS: 'web' })
    try {
      const registrar = await webOnly.issueKey(['registrar'])
      const create = (cls: string) => webOnly.app.inject({
        method: 'POST',
        url: '/v1/domains',
        headers: webOnly.auth(registrar.key),
        payload: { type: 'Project', class: cls }
      })
      expect((await create('did:web:protocols.example.org:clean-cooking')).statusCode).toBe(201)
      expect(refusal(await create(PROTOCOL)).code).toBe('DOMAIN_CLASS_METHOD_NOT_ALLOWED')
    } finally {
      await webOnly.close()
    }
  }, 60_000)
})

describe('links checked on PATCH /v1/domains/:did', () => {
  it('moves a device to another live project, and refuses a missing, deactivated or own parent', async () => {
    const stove = (await post(stoveOf(programme, 'UPD-1'))).json()
    const second = await t.createDomain(keys.registrar.key, {
      class: programme.protocol, links: { organisation: programme.organisation }
    })
    const moved = await patch(stove.did, { links: { parent: second.did } })
    expect(moved.statusCode).toBe(200)
    expect(moved.json()).toMatchObject({ project: second.did, organisation: programme.organisation })

    expect(refusal(await patch(stove.did, { links: { parent: unknownDid } })))
      .toEqual({ status: 422, code: 'DOMAIN_LINK_NOT_FOUND', fields: ['/links/parent'] })
    expect(refusal(await patch(stove.did, { links: { parent: stove.did } })))
      .toEqual({ status: 422, code: 'DOMAIN_LINK_MISMATCH', fields: ['/links/parent'] })
    const closed = await t.createDomain(keys.registrar.key, { class: programme.protocol })
    await deactivate(closed.did)
    expect(refusal(await patch(stove.did, { links: { parent: closed.did } })))
      .toEqual({ status: 422, code: 'DOMAIN_LINK_NOT_USABLE', fields: ['/links/parent'] })
  })

  it('keeps the links of a domain other domains name as parent, and lets its other fields change', async () => {
    const project = await t.createDomain(keys.registrar.key, {
      class: programme.protocol, links: { organisation: programme.organisation }
    })
    expect((await post(stoveOf(programme, 'UPD-2', { links: { parent: project.did } }))).statusCode).toBe(201)
    const other = await t.createDomain(keys.registrar.key, { type: 'Organisation' })
    expect(refusal(await patch(project.did, { links: { organisation: other.did } })).code)
      .toBe('DOMAIN_STATE_CONFLICT')
    const same = await patch(project.did, { links: { organisation: programme.organisation }, alsoKnownAs: ['urn:p:2'] })
    expect(same.statusCode).toBe(200)
    expect(same.json().organisation).toBe(programme.organisation)
  })
})
