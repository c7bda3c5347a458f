import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_KEY, PROTOCOL, randomAccount, startApp, type TestApp } from '../helper.ts'
import { call, member, organisation, type TenantKey } from '../tenants.ts'

let t: TestApp
let office: { key: string, account: string }
let orgA: string
let orgB: string
let adminA: TenantKey
let registrarA: TenantKey
let registrarB: TenantKey

beforeAll(async () => {
  t = await startApp()
  office = await t.issueKey(['registrar'])
  orgA = await organisation(t, office.key, 'Stove Makers A')
  orgB = await organisation(t, office.key, 'Stove Makers B')
  adminA = await member(t, orgA, ['admin', 'registrar'])
  registrarA = await member(t, null, ['registrar'], adminA.key)
  registrarB = await member(t, orgB, ['registrar'])
}, 60_000)
afterAll(async () => { await t?.close() })

const refusedWith = (res: { statusCode: number, json: () => any }, status: number, code: string) => {
  expect([res.statusCode, res.json().code]).toEqual([status, code])
}

describe('organisations of accounts and keys', () => {
  it('puts accounts and keys in the organisation the admin gives, or the organisation admin\'s own', async () => {
    expect(adminA.organisation).toBe(orgA)
    expect(registrarA.organisation).toBe(orgA)
    const roles = await call(t, ADMIN_KEY, 'GET', `/v1/accounts/${registrarA.account}/roles`)
    expect(roles.json()).toEqual({ account: registrarA.account, roles: ['registrar'], organisation: orgA })
    expect((await call(t, registrarA.key, 'GET', '/v1/api-keys/current')).json())
      .toMatchObject({ account: registrarA.account, roles: ['registrar'], organisation: orgA })
    const platform = await t.issueKey(['reader'])
    expect((await call(t, platform.key, 'GET', '/v1/api-keys/current')).json().organisation).toBeNull()
  })

  it('keeps an organisation\'s admin inside it', async () => {
    refusedWith(await call(t, adminA.key, 'PUT', `/v1/accounts/${registrarB.account}/roles`, { roles: [] }),
      403, 'DOMAIN_ORGANISATION_FORBIDDEN')
    refusedWith(await call(t, adminA.key, 'GET', `/v1/accounts/${registrarB.account}/roles`),
      403, 'DOMAIN_ORGANISATION_FORBIDDEN')
    refusedWith(await call(t, adminA.key, 'PUT', `/v1/accounts/${randomAccount()}/roles`, { roles: ['voter'] }),
      403, 'DOMAIN_ORGANISATION_FORBIDDEN')
    const elsewhere = { name: 'x', roles: ['reader'], account: randomAccount(), organisation: orgB }
    refusedWith(await call(t, adminA.key, 'POST', '/v1/api-keys', elsewhere), 403, 'DOMAIN_ORGANISATION_FORBIDDEN')
    refusedWith(await call(t, adminA.key, 'POST', '/v1/api-keys',
      { name: 'x', roles: ['reader'], account: registrarB.account }), 403, 'DOMAIN_ORGANISATION_FORBIDDEN')

    // Accounts acting in the registry already, and keys for accounts not in the organisation, are not its to take.
    refusedWith(await call(t, adminA.key, 'PUT', `/v1/accounts/${office.account}/roles`, { roles: ['registrar'] }),
      403, 'DOMAIN_ORGANISATION_FORBIDDEN')
    refusedWith(await call(t, adminA.key, 'POST', '/v1/api-keys',
      { name: 'x', roles: ['registrar'], account: office.account }), 403, 'DOMAIN_ORGANISATION_FORBIDDEN')
    const household = randomAccount()
    await t.createDomain(office.key, { onBehalfOf: household })
    refusedWith(await call(t, adminA.key, 'PUT', `/v1/accounts/${household}/roles`, { roles: [] }),
      403, 'DOMAIN_ORGANISATION_FORBIDDEN')
    const untouched = await call(t, ADMIN_KEY, 'GET', `/v1/accounts/${office.account}/roles`)
    expect(untouched.json().roles).toEqual(['registrar'])

    const listed = (await call(t, adminA.key, 'GET', '/v1/api-keys?limit=100')).json().items
    expect(listed.map((k: { id: string }) => k.id).sort()).toEqual([adminA.id, registrarA.id].sort())
    expect(listed.every((k: { organisation: string }) => k.organisation === orgA)).toBe(true)
    refusedWith(await call(t, adminA.key, 'GET', `/v1/api-keys/${registrarB.id}`), 404, 'DOMAIN_API_KEY_NOT_FOUND')
    refusedWith(await call(t, adminA.key, 'DELETE', `/v1/api-keys/${registrarB.id}`), 404, 'DOMAIN_API_KEY_NOT_FOUND')
    expect((await call(t, registrarB.key, 'GET', '/v1/api-keys/current')).statusCode).toBe(200)
    const all = (await call(t, ADMIN_KEY, 'GET', '/v1/api-keys?limit=100')).json().items
    expect(all.map((k: { id: string }) => k.id)).toEqual(expect.arrayContaining([registrarB.id, registrarA.id]))
  })

  it('fixes an account\'s organisation and takes organisation domains only', async () => {
    refusedWith(await call(t, ADMIN_KEY, 'PUT', `/v1/accounts/${registrarA.account}/roles`,
      { roles: ['registrar'], organisation: orgB }), 409, 'DOMAIN_ORGANISATION_CONFLICT')
    refusedWith(await call(t, ADMIN_KEY, 'POST', '/v1/api-keys',
      { name: 'x', roles: ['reader'], account: registrarA.account, organisation: orgB }),
    409, 'DOMAIN_ORGANISATION_CONFLICT')
    const project = await t.createDomain(office.key)
    const notOrganisation = await call(t, ADMIN_KEY, 'PUT', `/v1/accounts/${randomAccount()}/roles`,
      { roles: [], organisation: project.did })
    refusedWith(notOrganisation, 422, 'DOMAIN_ORGANISATION_INVALID')
    expect(notOrganisation.json().details).toEqual([expect.objectContaining({ field: '/organisation' })])
    const unknown = 'did:ixo:entity:00000000000000000000000000000000'
    refusedWith(await call(t, ADMIN_KEY, 'POST', '/v1/api-keys', {
      name: 'x', roles: ['reader'], account: randomAccount(), organisation: unknown
    }), 422, 'DOMAIN_ORGANISATION_INVALID')
    expect((await call(t, ADMIN_KEY, 'PUT', `/v1/accounts/${registrarA.account}/roles`,
      { roles: ['registrar'], organisation: orgA })).statusCode).toBe(200)
  })
})

describe('writes across organisations', () => {
  it('registers what a member sends without links in its organisation', async () => {
    const project = await t.createDomain(registrarA.key)
    expect(project).toMatchObject({ organisation: orgA, links: { organisation: orgA } })
    const device = await t.createDomain(registrarA.key,
      { type: 'Device', externalId: 'SN-1', links: { parent: project.did } })
    expect(device).toMatchObject({ organisation: orgA, project: project.did, links: { parent: project.did } })
  })

  it('refuses registrations and changes of another organisation\'s domains with 403', async () => {
    const project = await t.createDomain(registrarA.key)
    // Even as a controller, a member of another organisation does not change it.
    expect((await call(t, registrarA.key, 'PATCH', `/v1/domains/${project.did}`,
      { controllers: [registrarA.account, registrarB.account] })).statusCode).toBe(200)
    const forbidden = await call(t, registrarB.key, 'PATCH', `/v1/domains/${project.did}`, { metadata: { x: 1 } })
    refusedWith(forbidden, 403, 'DOMAIN_ORGANISATION_FORBIDDEN')
    expect(forbidden.json().message).toContain(orgA)
    refusedWith(await call(t, registrarB.key, 'POST', `/v1/domains/${project.did}/deactivate`),
      403, 'DOMAIN_ORGANISATION_FORBIDDEN')
    refusedWith(await call(t, registrarB.key, 'POST', '/v1/domains',
      { type: 'Device', class: PROTOCOL, links: { parent: project.did } }), 403, 'DOMAIN_ORGANISATION_FORBIDDEN')
    refusedWith(await call(t, registrarB.key, 'POST', '/v1/domains',
      { type: 'Project', class: PROTOCOL, links: { organisation: orgA } }), 403, 'DOMAIN_ORGANISATION_FORBIDDEN')
    const own = await t.createDomain(registrarB.key)
    refusedWith(await call(t, registrarB.key, 'PATCH', `/v1/domains/${own.did}`, { links: { organisation: orgA } }),
      403, 'DOMAIN_ORGANISATION_FORBIDDEN')
    refusedWith(await call(t, adminA.key, 'PATCH', `/v1/domains/${own.did}`, { metadata: { taken: true } }),
      403, 'DOMAIN_ORGANISATION_FORBIDDEN')

    const batch = await call(t, registrarB.key, 'POST', '/v1/domains/batch', {
      items: [
        { type: 'Device', class: PROTOCOL, externalId: 'SN-X', links: { parent: project.did } },
        { type: 'Device', class: PROTOCOL, externalId: 'SN-X', links: { parent: own.did } }
      ]
    })
    expect(batch.json()).toMatchObject({ created: 1, failed: 1 })
    expect(batch.json().items[0].error).toMatchObject({ statusCode: 403, code: 'DOMAIN_ORGANISATION_FORBIDDEN' })

    const read = await call(t, ADMIN_KEY, 'GET', `/v1/domains/${project.did}`)
    expect([read.json().status, read.json().metadata]).toEqual(['draft', { name: 'Clean Cooking Project' }])
    // The platform admin and the organisation's own admin may.
    expect((await call(t, adminA.key, 'PATCH', `/v1/domains/${project.did}`, { metadata: { v: 2 } })).statusCode)
      .toBe(200)
    expect((await call(t, ADMIN_KEY, 'PATCH', `/v1/domains/${own.did}`, { metadata: { v: 3 } })).statusCode).toBe(200)
  })

  it('leaves callers of no organisation to the controller rules they always had', async () => {
    const project = await t.createDomain(registrarA.key)
    const device = await t.createDomain(office.key, { type: 'Device', links: { parent: project.did } })
    expect(device.organisation).toBe(orgA)
    expect((await call(t, office.key, 'PATCH', `/v1/domains/${device.did}`, { metadata: { v: 2 } })).statusCode)
      .toBe(200)
  })
})
