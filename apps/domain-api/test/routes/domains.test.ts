import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PROTOCOL, randomAccount, startApp, type TestApp } from '../helper.ts'
import { issueGovernance, verifiedProtocol } from '../governance.ts'

let t: TestApp
let registrar: { id: string, key: string, account: string }

beforeAll(async () => {
  t = await startApp()
  registrar = await t.issueKey(['registrar'], randomAccount())
})
afterAll(async () => { await t?.close() })

const post = (body: unknown, key = registrar.key) =>
  t.app.inject({ method: 'POST', url: '/v1/domains', headers: t.auth(key), payload: body as object })

describe('POST /v1/domains', () => {
  it('registers a draft domain with a fresh entity DID, the caller as controller and a Location', async () => {
    const extra = randomAccount()
    const res = await post({
      type: 'Project',
      protocol: PROTOCOL,
      metadata: { name: 'Clean Cooking Project' },
      controllers: [extra]
    })
    expect(res.statusCode).toBe(201)
    const domain = res.json()
    expect(domain.did).toMatch(/^did:ixo:entity:[0-9a-f]{32}$/)
    expect(res.headers.location).toBe(`/v1/domains/${domain.did}`)
    expect(domain).toMatchObject({
      type: 'project',
      class: PROTOCOL,
      protocol: PROTOCOL,
      controllers: [registrar.account, extra],
      metadata: { name: 'Clean Cooking Project' },
      status: 'draft',
      verified: false,
      usable: false,
      verification: null,
      validFrom: null,
      validUntil: null,
      createdBy: { keyId: registrar.id, account: registrar.account }
    })
    const read = await t.app.inject({
      method: 'GET',
      url: res.headers.location as string,
      headers: t.auth(registrar.key)
    })
    expect(read.statusCode).toBe(200)
    expect(read.json()).toEqual(domain)
  })

  it('gives every domain its own DID', async () => {
    const dids = await Promise.all(Array.from({ length: 5 }, async () => (await t.createDomain(registrar.key)).did))
    expect(new Set(dids).size).toBe(5)
  })

  it.each([
    ['Organisation', 'dao'],
    ['organization', 'dao'],
    ['PROJECT', 'project'],
    ['Asset', 'asset/device'],
    ['device', 'asset/device'],
    ['Asset/Device', 'asset/device'],
    ['Protocol', 'protocol'],
    ['oracle', 'oracle'],
    ['Request', 'deed/request'],
    ['protocol/Claim', 'protocol/claim'],
    ['asset/membershipasset', 'asset/membershipAsset']
  ])('stores the entity type %s as %s', async (input, stored) => {
    const res = await post({ type: input, class: PROTOCOL })
    expect(res.statusCode).toBe(201)
    expect(res.json().type).toBe(stored)
  })

  it('accepts the docs sample (protocol DID with a path, no metadata)', async () => {
    const res = await post({ type: 'Project', protocol: 'did:ixo:protocol/clean-cooking' })
    expect(res.statusCode).toBe(201)
    expect(res.json()).toMatchObject({ class: 'did:ixo:protocol/clean-cooking', metadata: {} })
  })

  it('accepts class and protocol together when they agree', async () => {
    expect((await post({ type: 'Project', class: PROTOCOL, protocol: PROTOCOL })).statusCode).toBe(201)
  })

  it('refuses class and protocol that differ', async () => {
    const res = await post({
      type: 'Project',
      class: PROTOCOL,
      protocol: 'did:ixo:entity:ffffffffffffffffffffffffffffffff'
    })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toMatchObject({
      statusCode: 400,
      error: 'Bad Request',
      code: 'DOMAIN_INVALID_REQUEST',
      details: [{ field: '/protocol' }]
    })
  })

  it('requires class or protocol', async () => {
    const res = await post({ type: 'Project' })
    expect(res.statusCode).toBe(400)
    expect(res.json().details).toEqual([{ field: '/class', message: 'is required (or send protocol)' }])
  })

  it('refuses an unknown entity type naming the accepted ones', async () => {
    const res = await post({ type: 'Spaceship', class: PROTOCOL })
    expect(res.statusCode).toBe(400)
    expect(res.json().code).toBe('DOMAIN_INVALID_REQUEST')
    expect(res.json().details[0]).toMatchObject({ field: '/type' })
    expect(res.json().details[0].message).toContain('Organisation')
  })

  it.each([
    [{ type: 'Project', class: 'not-a-did' }, '/class'],
    [{ type: 'Project', class: 'did:ixo' }, '/class'],
    [{ type: 'Project', class: PROTOCOL, controllers: ['alice'] }, '/controllers/0'],
    [{ type: 'Project', class: PROTOCOL, validFrom: '2026-13-01' }, '/validFrom'],
    [{ type: 'Project', class: PROTOCOL, validUntil: 'tomorrow' }, '/validUntil'],
    [{ type: 'Project', class: PROTOCOL, metadata: 'x' }, '/metadata'],
    [{ type: 'Project', class: PROTOCOL, validUntill: '2030-01-01T00:00:00Z' }, '/validUntill']
  ])('answers 400 with field details for %j', async (body, field) => {
    const res = await post(body)
    expect(res.statusCode).toBe(400)
    expect(res.json()).toMatchObject({ statusCode: 400, error: 'Bad Request' })
    expect(res.json().details[0].field).toBe(`body${field}`)
  })

  it('requires validFrom before validUntil', async () => {
    const res = await post({
      type: 'Project',
      class: PROTOCOL,
      validFrom: t.clock.at(2 * 86_400_000),
      validUntil: t.clock.at(86_400_000)
    })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toMatchObject({
      code: 'DOMAIN_INVALID_REQUEST',
      details: [{ field: '/validUntil', message: 'must be after validFrom' }]
    })
  })

  it('refuses a validUntil in the past', async () => {
    const res = await post({ type: 'Project', class: PROTOCOL, validUntil: t.clock.at(-1000) })
    expect(res.statusCode).toBe(400)
    expect(res.json().details).toEqual([{ field: '/validUntil', message: 'must be in the future' }])
  })

  it('keeps validity timestamps with offsets as instants', async () => {
    const res = await post({
      type: 'Project',
      class: PROTOCOL,
      validFrom: '2030-01-01T02:00:00+02:00',
      validUntil: '2031-01-01T00:00:00Z'
    })
    expect(res.statusCode).toBe(201)
    expect(res.json()).toMatchObject({ validFrom: '2030-01-01T00:00:00.000Z', validUntil: '2031-01-01T00:00:00.000Z' })
  })

  it('refuses metadata over 16 KiB', async () => {
    const res = await post({ type: 'Project', class: PROTOCOL, metadata: { blob: 'x'.repeat(17_000) } })
    expect(res.statusCode).toBe(400)
    expect(res.json().details).toEqual([{ field: '/metadata', message: 'must be at most 16384 bytes of JSON' }])
  })

  it('refuses a class that is a registered non-protocol domain', async () => {
    const project = await t.createDomain(registrar.key)
    const res = await post({ type: 'Project', class: project.did })
    expect(res.statusCode).toBe(422)
    expect(res.json().code).toBe('DOMAIN_CLASS_NOT_PROTOCOL')
    const protocol = await verifiedProtocol(t, await issueGovernance(t))
    expect((await post({ type: 'Project', class: protocol })).statusCode).toBe(201)
  })

  it('answers 401 without a key and 403 for a key without the registrar role', async () => {
    const none = await t.app.inject({
      method: 'POST',
      url: '/v1/domains',
      payload: { type: 'Project', class: PROTOCOL }
    })
    expect(none.statusCode).toBe(401)
    expect(none.json().code).toBe('DOMAIN_AUTH_MISSING')
    expect(none.headers['www-authenticate']).toBe('Bearer')
    const voter = await t.issueKey(['voter'])
    const res = await post({ type: 'Project', class: PROTOCOL }, voter.key)
    expect(res.statusCode).toBe(403)
    expect(res.json()).toMatchObject({ statusCode: 403, code: 'DOMAIN_FORBIDDEN' })
  })
})

describe('GET /v1/domains/:did', () => {
  it('answers 404 for an unknown DID and 400 for a malformed one', async () => {
    const missing = await t.app.inject({
      method: 'GET',
      url: '/v1/domains/did:ixo:entity:00000000000000000000000000000000',
      headers: t.auth(registrar.key)
    })
    expect(missing.statusCode).toBe(404)
    expect(missing.json().code).toBe('DOMAIN_NOT_FOUND')
    const malformed = await t.app.inject({
      method: 'GET',
      url: '/v1/domains/did:ixo:entity:XYZ',
      headers: t.auth(registrar.key)
    })
    expect(malformed.statusCode).toBe(400)
  })
})

describe('GET /v1/domains', () => {
  it('filters by type, protocol, status and controller and pages with a cursor', async () => {
    const owner = await t.issueKey(['registrar'], randomAccount())
    const protocol = 'did:ixo:protocol/filters'
    const created = []
    for (let i = 0; i < 5; i++) {
      t.clock.advance(1)
      created.push(await t.createDomain(owner.key, { type: i < 3 ? 'Oracle' : 'Project', class: protocol }))
    }
    const list = async (query: string) => {
      const res = await t.app.inject({ method: 'GET', url: `/v1/domains?${query}`, headers: t.auth(registrar.key) })
      expect(res.statusCode).toBe(200)
      return res.json() as { items: Array<{ did: string }>, nextCursor: string | null }
    }
    const all = await list(`controller=${owner.account}&limit=100`)
    expect(all.items.map((d) => d.did)).toEqual(created.map((d) => d.did).reverse())
    expect((await list(`controller=${owner.account}&type=ORACLE`)).items).toHaveLength(3)
    expect((await list(`protocol=${protocol}&type=project`)).items).toHaveLength(2)
    expect((await list(`class=${protocol}&status=draft`)).items).toHaveLength(5)
    expect((await list(`protocol=${protocol}&status=verified`)).items).toHaveLength(0)

    const seen: string[] = []
    let cursor: string | null = null
    do {
      const page = await list(`controller=${owner.account}&limit=2${cursor !== null ? `&cursor=${cursor}` : ''}`)
      expect(page.items.length).toBeLessThanOrEqual(2)
      seen.push(...page.items.map((d) => d.did))
      cursor = page.nextCursor
    } while (cursor !== null)
    expect(seen).toEqual(all.items.map((d) => d.did))
  })

  it('refuses a malformed cursor and an unknown type filter', async () => {
    const bad = await t.app.inject({ method: 'GET', url: '/v1/domains?cursor=bm9wZQ', headers: t.auth(registrar.key) })
    expect(bad.statusCode).toBe(400)
    expect(bad.json().code).toBe('DOMAIN_INVALID_CURSOR')
    const type = await t.app.inject({
      method: 'GET',
      url: '/v1/domains?type=spaceship',
      headers: t.auth(registrar.key)
    })
    expect(type.statusCode).toBe(400)
  })
})

describe('PATCH /v1/domains/:did', () => {
  it('lets a controller change metadata, validity and controllers, and records it', async () => {
    const domain = await t.createDomain(registrar.key)
    const next = randomAccount()
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/v1/domains/${domain.did}`,
      headers: t.auth(registrar.key),
      payload: {
        metadata: { name: 'Renamed' },
        validUntil: t.clock.at(86_400_000),
        controllers: [registrar.account, next]
      }
    })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({
      metadata: { name: 'Renamed' },
      controllers: [registrar.account, next],
      status: 'draft'
    })
    const history = await t.history(domain.did, registrar.key)
    expect(history.map((e) => e.event)).toEqual(['created', 'updated'])
    expect(history[1]).toMatchObject({
      actor: { kind: 'api-key', keyId: registrar.id },
      details: { changed: ['metadata', 'validUntil', 'controllers'] }
    })
  })

  it('refuses a registrar that does not control the domain, but lets an admin', async () => {
    const domain = await t.createDomain(registrar.key)
    const stranger = await t.issueKey(['registrar'], randomAccount())
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/v1/domains/${domain.did}`,
      headers: t.auth(stranger.key),
      payload: { metadata: { x: 1 } }
    })
    expect(res.statusCode).toBe(403)
    expect(res.json().code).toBe('DOMAIN_NOT_CONTROLLER')
    const admin = await t.issueKey(['admin'])
    const ok = await t.app.inject({
      method: 'PATCH',
      url: `/v1/domains/${domain.did}`,
      headers: t.auth(admin.key),
      payload: { metadata: { x: 1 } }
    })
    expect(ok.statusCode).toBe(200)
  })

  it('refuses an empty patch and an empty controller list', async () => {
    const domain = await t.createDomain(registrar.key)
    for (const payload of [{}, { controllers: [] }]) {
      const res = await t.app.inject({
        method: 'PATCH',
        url: `/v1/domains/${domain.did}`,
        headers: t.auth(registrar.key),
        payload
      })
      expect(res.statusCode).toBe(400)
    }
  })
})

describe('POST /v1/domains/:did/deactivate', () => {
  it('deactivates once, with the reason in the history', async () => {
    const domain = await t.createDomain(registrar.key)
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/domains/${domain.did}/deactivate`,
      headers: t.auth(registrar.key),
      payload: { reason: 'project closed' }
    })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ status: 'deactivated', usable: false })
    expect(res.json().deactivatedAt).not.toBeNull()
    const again = await t.app.inject({
      method: 'POST',
      url: `/v1/domains/${domain.did}/deactivate`,
      headers: t.auth(registrar.key)
    })
    expect(again.statusCode).toBe(409)
    const patch = await t.app.inject({
      method: 'PATCH',
      url: `/v1/domains/${domain.did}`,
      headers: t.auth(registrar.key),
      payload: { metadata: {} }
    })
    expect(patch.statusCode).toBe(409)
    expect((await t.history(domain.did, registrar.key)).at(-1)).toMatchObject({
      event: 'deactivated',
      fromStatus: 'draft',
      toStatus: 'deactivated',
      reason: 'project closed'
    })
  })
})
