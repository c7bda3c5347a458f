import { Resolver } from 'did-resolver'
import jsonld from 'jsonld'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { getResolver } from '../../src/client/did-resolver.ts'
import { ed25519Multikey, offlineLoader } from '../did-fixtures.ts'
import { issueGovernance, voteThrough } from '../governance.ts'
import { ADMIN_KEY, PROTOCOL, randomAccount, startApp, type TestApp } from '../helper.ts'

let t: TestApp
let registrar: { id: string, key: string, account: string }
let controllerKey: ReturnType<typeof ed25519Multikey>
let deviceKey: ReturnType<typeof ed25519Multikey>
let base: string
let ORGANISATION: string
let PARENT: string
const SECRET = 'private-settings-7f3a9c'
const TELEMETRY = 'https://w3id.org/ixo/ns/did#Telemetry'
const RESULT_TYPE = 'application/did+ld+json; profile="https://w3id.org/did-resolution"'

// Each test makes several round trips through a real database; a shared machine can be slow.
vi.setConfig({ testTimeout: 30_000, hookTimeout: 120_000 })

beforeAll(async () => {
  t = await startApp()
  controllerKey = ed25519Multikey()
  deviceKey = ed25519Multikey()
  registrar = await t.issueKey(['registrar'], controllerKey.did)
  ORGANISATION = (await t.createDomain(registrar.key, { type: 'Organisation' })).did
  PARENT = (await t.createDomain(registrar.key, { links: { organisation: ORGANISATION } })).did
  base = await t.app.listen({ host: '127.0.0.1', port: 0 })
})
afterAll(async () => { await t?.close() })

const resolve = (did: string, query = '', headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: `/1.0/identifiers/${encodeURIComponent(did)}${query}`, headers })

const register = (extra: Record<string, unknown> = {}) => t.createDomain(registrar.key, {
  type: 'Asset',
  metadata: { name: 'Stove 17', settings: SECRET },
  deviceKeys: [{ id: 'stove', publicKeyMultibase: deviceKey.multikey }],
  services: [{ id: 'telemetry', type: TELEMETRY, serviceEndpoint: 'https://telemetry.example.org/17' }],
  alsoKnownAs: ['https://stoves.example.org/17'],
  links: { organisation: ORGANISATION, parent: PARENT },
  ...extra
})

async function expand (document: unknown) {
  // Safe mode makes expansion fail on anything it would drop (undefined terms, relative IRIs…).
  const options = { documentLoader: offlineLoader, safe: true } as jsonld.Options.Expand
  return await jsonld.expand(document as jsonld.JsonLdDocument, options)
}

describe('GET /1.0/identifiers/:did', () => {
  it('serves a DID Core document with keys, services, links and metadata, without private metadata', async () => {
    const domain = await register()
    const res = await resolve(domain.did)
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(RESULT_TYPE)
    const result = res.json()
    const did = domain.did
    expect(result['@context']).toBe('https://w3id.org/did-resolution/v1')
    expect(result.didResolutionMetadata.error).toBeUndefined()
    const doc = result.didDocument
    expect(doc['@context'][0]).toBe('https://www.w3.org/ns/did/v1')
    expect(doc.id).toBe(did)
    expect(doc.controller).toEqual([controllerKey.did])
    expect(doc.alsoKnownAs).toEqual(['https://stoves.example.org/17'])
    const controllerMethod = `${controllerKey.did}#${controllerKey.multikey}`
    expect(doc.verificationMethod).toEqual([
      {
        id: controllerMethod,
        type: 'Multikey',
        controller: controllerKey.did,
        publicKeyMultibase: controllerKey.multikey
      },
      { id: `${did}#stove`, type: 'Multikey', controller: did, publicKeyMultibase: deviceKey.multikey }
    ])
    expect(doc.authentication).toEqual([controllerMethod, `${did}#stove`])
    expect(doc.assertionMethod).toEqual([controllerMethod, `${did}#stove`])
    expect(doc.service).toEqual([
      { id: `${did}#telemetry`, type: TELEMETRY, serviceEndpoint: 'https://telemetry.example.org/17' },
      { id: `${did}#protocol`, type: 'IxoProtocol', serviceEndpoint: PROTOCOL },
      { id: `${did}#parent`, type: 'IxoParentEntity', serviceEndpoint: PARENT },
      { id: `${did}#organisation`, type: 'IxoOrganisation', serviceEndpoint: ORGANISATION }
    ])
    expect(result.didDocumentMetadata).toMatchObject({
      created: domain.createdAt,
      deactivated: false,
      versionId: '1',
      status: 'draft',
      verified: false,
      type: 'asset/device'
    })
    expect(result.didDocumentMetadata.updated).toBeUndefined()
    expect(res.body).not.toContain(SECRET)
    expect(res.body).not.toContain('Stove 17')
    expect(res.body).not.toContain(registrar.id)
  })

  it('is JSON-LD valid against the DID Core and Multikey contexts: safe-mode expansion keeps every term', async () => {
    const domain = await register()
    const doc = (await resolve(domain.did)).json().didDocument
    const [node] = await expand(doc) as Array<Record<string, any>>
    const sec = 'https://w3id.org/security#'
    expect(node!['@id']).toBe(domain.did)
    expect(node![`${sec}controller`]).toEqual([{ '@id': controllerKey.did }])
    expect(node!['https://www.w3.org/ns/activitystreams#alsoKnownAs'])
      .toEqual([{ '@id': 'https://stoves.example.org/17' }])
    const methods = node![`${sec}verificationMethod`] as Array<Record<string, any>>
    expect(methods.map((m) => m['@type'])).toEqual([[`${sec}Multikey`], [`${sec}Multikey`]])
    expect(methods[1]![`${sec}publicKeyMultibase`])
      .toEqual([{ '@type': `${sec}multibase`, '@value': deviceKey.multikey }])
    expect(node![`${sec}authenticationMethod`]).toHaveLength(2)
    expect(node![`${sec}assertionMethod`]).toHaveLength(2)
    const services = node!['https://www.w3.org/ns/did#service'] as Array<Record<string, any>>
    expect(services.map((s) => s['@type'][0])).toEqual([
      'https://w3id.org/ixo/ns/did#Telemetry',
      'https://w3id.org/ixo/ns/did#IxoProtocol',
      'https://w3id.org/ixo/ns/did#IxoParentEntity',
      'https://w3id.org/ixo/ns/did#IxoOrganisation'
    ])
    expect(services[1]!['https://www.w3.org/ns/did#serviceEndpoint']).toEqual([{ '@id': PROTOCOL }])
    // The check can fail: a term no context defines is refused in safe mode.
    await expect(expand({ ...doc, name: 'undefined term' })).rejects.toThrow()
  })

  it('is read by the did-resolver package over HTTP, including versions and errors', async () => {
    const domain = await register()
    const resolver = new Resolver(getResolver({ url: `${base}/1.0/identifiers/` }))
    const read = await resolver.resolve(domain.did)
    expect(read.didResolutionMetadata.error).toBeUndefined()
    expect(read.didDocument?.id).toBe(domain.did)
    expect(read.didDocument?.verificationMethod?.map((m) => m.publicKeyMultibase)).toContain(deviceKey.multikey)
    expect(read.didDocumentMetadata.versionId).toBe('1')

    const created = new Date(domain.createdAt as string)
    t.clock.advance(60_000)
    const other = randomAccount()
    const patch = await t.app.inject({
      method: 'PATCH',
      url: `/v1/domains/${domain.did}`,
      headers: t.auth(registrar.key),
      payload: { controllers: [other] }
    })
    expect(patch.statusCode).toBe(200)
    const latest = await resolver.resolve(domain.did)
    expect(latest.didDocument?.controller).toEqual([other])
    expect(latest.didDocumentMetadata).toMatchObject({ versionId: '2', updated: patch.json().updatedAt })
    const then = new Date(created.getTime() + 1000).toISOString()
    const earlier = await resolver.resolve(`${domain.did}?versionTime=${then}`)
    expect(earlier.didDocument?.controller).toEqual([controllerKey.did])
    expect(earlier.didDocumentMetadata).toMatchObject({
      versionId: '1', nextVersionId: '2', nextUpdate: patch.json().updatedAt
    })
    const unknown = await resolver.resolve('did:ixo:entity:ffffffffffffffffffffffffffffffff')
    expect(unknown.didResolutionMetadata.error).toBe('notFound')
    expect(unknown.didDocument).toBeNull()
  })

  it('resolves earlier versions by versionTime and versionId', async () => {
    const domain = await register()
    const firstAt = domain.createdAt as string
    t.clock.advance(60_000)
    const patch = await t.app.inject({
      method: 'PATCH',
      url: `/v1/domains/${domain.did}`,
      headers: t.auth(registrar.key),
      payload: { services: [], links: {}, alsoKnownAs: [] }
    })
    expect(patch.statusCode).toBe(200)
    const now = (await resolve(domain.did)).json()
    expect(now.didDocument.service)
      .toEqual([{ id: `${domain.did}#protocol`, type: 'IxoProtocol', serviceEndpoint: PROTOCOL }])
    expect(now.didDocument.alsoKnownAs).toBeUndefined()
    expect(now.didDocumentMetadata.versionId).toBe('2')

    const before = (await resolve(domain.did, `?versionTime=${encodeURIComponent(firstAt)}`)).json()
    expect(before.didDocumentMetadata)
      .toMatchObject({ versionId: '1', nextVersionId: '2', nextUpdate: patch.json().updatedAt })
    expect(before.didDocument.service).toHaveLength(4)
    const byId = (await resolve(domain.did, '?versionId=1')).json()
    expect(byId.didDocument).toEqual(before.didDocument)
    expect((await resolve(domain.did, '?versionId=2')).json().didDocumentMetadata.nextVersionId).toBeUndefined()

    const tooEarly = await resolve(domain.did, `?versionTime=${new Date(Date.parse(firstAt) - 1000).toISOString()}`)
    expect(tooEarly.statusCode).toBe(404)
    expect(tooEarly.json().didResolutionMetadata.error).toBe('notFound')
    expect((await resolve(domain.did, '?versionId=9')).statusCode).toBe(404)
    for (const query of ['?versionTime=yesterday', '?versionId=0', '?versionId=abc']) {
      const bad = await resolve(domain.did, query)
      expect(bad.statusCode).toBe(400)
      expect(bad.json().didResolutionMetadata.error).toBe('invalidOptions')
    }
  })

  it('records a version when governance verifies the domain', async () => {
    const domain = await register()
    const { compliance, voters } = await issueGovernance(t)
    await voteThrough(t, domain.did, compliance, voters)
    const meta = (await resolve(domain.did)).json().didDocumentMetadata
    expect(meta).toMatchObject({ versionId: '3', status: 'verified', verified: true })
    expect((await resolve(domain.did, '?versionId=2')).json().didDocumentMetadata).toMatchObject({
      status: 'verification_submitted', verified: false, nextVersionId: '3'
    })
  })

  it('settles a due expiry before resolving, so the latest version says expired', async () => {
    const validUntil = t.clock.at(3_600_000)
    const domain = await register({ validUntil })
    t.clock.advance(7_200_000)
    const meta = (await resolve(domain.did)).json().didDocumentMetadata
    expect(meta).toMatchObject({ versionId: '2', status: 'expired', updated: new Date(validUntil).toISOString() })
    expect((await t.history(domain.did, registrar.key)).map((e) => e.event)).toEqual(['created', 'expired'])
  })

  it('answers 410 with deactivated: true once the domain is deactivated', async () => {
    const domain = await register()
    const off = await t.app.inject({
      method: 'POST', url: `/v1/domains/${domain.did}/deactivate`, headers: t.auth(registrar.key)
    })
    expect(off.statusCode).toBe(200)
    const res = await resolve(domain.did)
    expect(res.statusCode).toBe(410)
    expect(res.json().didDocumentMetadata).toMatchObject({ deactivated: true, versionId: '2' })
    expect(res.json().didDocument.id).toBe(domain.did)
    expect((await resolve(domain.did, '?versionId=1')).statusCode).toBe(200)
  })

  it('answers errors as resolution results: 404 notFound, 400 invalidDid, 501 methodNotSupported, 406', async () => {
    const cases: Array<[string, number, string]> = [
      ['did:ixo:entity:ffffffffffffffffffffffffffffffff', 404, 'notFound'],
      ['did:ixo:ixo1someuser', 404, 'notFound'],
      ['not-a-did', 400, 'invalidDid'],
      ['did:Bad:x', 400, 'invalidDid'],
      ['did:web:example.org', 501, 'methodNotSupported'],
      [`did:web:example.org:${'stoves:'.repeat(30)}17`, 501, 'methodNotSupported']
    ]
    for (const [did, status, error] of cases) {
      const res = await resolve(did)
      expect(res.statusCode, did).toBe(status)
      expect(res.json()).toEqual({
        '@context': 'https://w3id.org/did-resolution/v1',
        didDocument: null,
        didResolutionMetadata: { error, errorMessage: expect.any(String) },
        didDocumentMetadata: {}
      })
    }
    const domain = await register()
    const html = await resolve(domain.did, '', { accept: 'text/html' })
    expect(html.statusCode).toBe(406)
    expect(html.json().didResolutionMetadata.error).toBe('representationNotSupported')
  })

  it('honours Accept: ld+json and plain JSON get the same result in their media type; no key needed', async () => {
    const domain = await register()
    const accept = 'application/ld+json;profile="https://w3id.org/did-resolution"'
    const ld = await resolve(domain.did, '', { accept })
    expect(ld.headers['content-type']).toMatch('application/ld+json; profile="https://w3id.org/did-resolution"')
    const json = await resolve(domain.did, '', { accept: 'text/html;q=0.9, application/json' })
    expect(json.headers['content-type']).toMatch(/^application\/json/)
    expect(json.json().didDocument).toEqual(ld.json().didDocument)
  })
})

describe('GET /v1/domains/:did with Accept: application/did+ld+json', () => {
  it('gives the DID document instead of the record, under the same auth', async () => {
    const domain = await register()
    const url = `/v1/domains/${domain.did}`
    const record = await t.app.inject({ method: 'GET', url, headers: t.auth(registrar.key) })
    expect(record.json()).toEqual(domain)
    const headers = { ...t.auth(registrar.key), accept: 'application/did+ld+json' }
    const doc = await t.app.inject({ method: 'GET', url: `/v1/domains/${domain.did}`, headers })
    expect(doc.statusCode).toBe(200)
    expect(doc.headers['content-type']).toMatch(/^application\/did\+ld\+json/)
    expect(doc.json()).toEqual((await resolve(domain.did)).json().didDocument)
    const anonymous = await t.app.inject({ method: 'GET', url, headers: { accept: 'application/did+ld+json' } })
    expect(anonymous.statusCode).toBe(401)
    const missing = await t.app.inject({
      method: 'GET', url: '/v1/domains/did:ixo:entity:ffffffffffffffffffffffffffffffff', headers
    })
    expect(missing.statusCode).toBe(404)
    expect(missing.json().code).toBe('DOMAIN_NOT_FOUND')
  })
})

describe('POST /v1/domains document fields', () => {
  const post = (payload: Record<string, unknown>) => t.app.inject({
    method: 'POST',
    url: '/v1/domains',
    headers: t.auth(registrar.key),
    payload: { type: 'Asset', class: PROTOCOL, ...payload }
  })

  it('refuses non-Ed25519 keys, reserved or repeated fragments and unknown service types', async () => {
    const secp = 'zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme'
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ deviceKeys: [{ id: 'k', publicKeyMultibase: secp }] }, 'FST_ERR_VALIDATION'],
      [{ deviceKeys: [{ id: 'k', publicKeyMultibase: `${deviceKey.multikey.slice(0, -1)}0` }] }, 'FST_ERR_VALIDATION'],
      [{ deviceKeys: [{ id: 'k', publicKeyMultibase: 'z6Mk' + '1'.repeat(44) }] }, 'DOMAIN_INVALID_REQUEST'],
      [{ deviceKeys: [{ id: 'protocol', publicKeyMultibase: deviceKey.multikey }] }, 'DOMAIN_INVALID_REQUEST'],
      [{
        deviceKeys: [{ id: 'a', publicKeyMultibase: deviceKey.multikey }],
        services: [{ id: 'a', type: 'LinkedDomains', serviceEndpoint: 'https://example.org' }]
      }, 'DOMAIN_INVALID_REQUEST'],
      [{ services: [{ id: 's', type: 'MadeUp', serviceEndpoint: 'https://example.org' }] }, 'FST_ERR_VALIDATION'],
      [{ services: [{ id: 's', type: 'LinkedDomains', serviceEndpoint: 'not a uri' }] }, 'FST_ERR_VALIDATION'],
      [{ links: { parent: 'nope' } }, 'FST_ERR_VALIDATION'],
      [{ links: { sibling: PARENT } }, 'FST_ERR_VALIDATION'],
      [{ alsoKnownAs: ['https://a.example', 'https://a.example'] }, 'FST_ERR_VALIDATION']
    ]
    for (const [payload, code] of bad) {
      const res = await post(payload)
      expect(res.statusCode, JSON.stringify(payload)).toBe(400)
      expect(res.json().code).toBe(code)
    }
  })

  it('returns the document fields in the record and lets a controller change them', async () => {
    const domain = await register()
    expect(domain).toMatchObject({
      deviceKeys: [{ id: 'stove', publicKeyMultibase: deviceKey.multikey }],
      links: { organisation: ORGANISATION, parent: PARENT }
    })
    const replacement = ed25519Multikey()
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/v1/domains/${domain.did}`,
      headers: t.auth(ADMIN_KEY),
      payload: {
        deviceKeys: [{ id: 'stove-2', publicKeyMultibase: replacement.multikey, purposes: ['assertionMethod'] }]
      }
    })
    expect(res.statusCode).toBe(200)
    expect(res.json().links).toEqual({ organisation: ORGANISATION, parent: PARENT })
    const doc = (await resolve(domain.did)).json().didDocument
    expect(doc.verificationMethod.map((m: { id: string }) => m.id)).toContain(`${domain.did}#stove-2`)
    expect(doc.authentication).not.toContain(`${domain.did}#stove-2`)
    expect(doc.assertionMethod).toContain(`${domain.did}#stove-2`)
  })
})

describe('OpenAPI', () => {
  it('lists the public resolution route with every status, and the document on GET /v1/domains/{did}', async () => {
    const spec = (await t.app.inject({ method: 'GET', url: '/docs/json' })).json()
    const route = spec.paths['/1.0/identifiers/{did}'].get
    expect(route.security).toBeUndefined()
    expect(Object.keys(route.responses).sort()).toEqual(['200', '400', '404', '406', '410', '429', '501'])
    const ok = route.responses['200'].content
    expect(Object.keys(ok)).toEqual(['application/did+ld+json', 'application/ld+json', 'application/json'])
    expect(ok['application/did+ld+json'].schema.properties.didDocument.properties.verificationMethod).toBeDefined()
    const read = spec.paths['/v1/domains/{did}'].get.responses['200'].content
    expect(Object.keys(read)).toEqual(['application/json', 'application/did+ld+json'])
    const create = spec.paths['/v1/domains'].post.requestBody.content['application/json'].schema.properties
    expect(Object.keys(create)).toEqual(expect.arrayContaining(['deviceKeys', 'services', 'alsoKnownAs', 'links']))
  })
})
