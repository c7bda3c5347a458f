import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { nodeAndGateway } from '../helper.ts'
import { buildDescriptorSet } from '../../scripts/build-descriptor-set.ts'
import { BUNDLED_SET_URL } from '../../src/services/descriptors.ts'

describe('descriptor sources', () => {
  it('derives routes from the node\'s reflection service: a service the node lacks has no route (404)', async () => {
    const { app } = await nodeAndGateway({ omitServices: ['ixo.token.v1beta1.Query'] })
    expect((await app.inject({ method: 'GET', url: '/' })).json()).toMatchObject({
      descriptors: 'reflection',
      routes: 23
    })
    expect((await app.inject({ method: 'GET', url: '/ixo/token/params' })).statusCode).toBe(404)
    expect((await app.inject({ method: 'GET', url: '/ixo/claims/params' })).statusCode).toBe(200)
  })

  it('keeps bundled routes for services the node does not serve: 501 Unimplemented', async () => {
    const { app } = await nodeAndGateway(
      { omitServices: ['ixo.token.v1beta1.Query'] },
      { CHAIN_DESCRIPTOR_SOURCE: 'bundled' }
    )
    expect((await app.inject({ method: 'GET', url: '/' })).json()).toMatchObject({ descriptors: 'bundled', routes: 27 })
    const res = await app.inject({ method: 'GET', url: '/ixo/token/params' })
    expect(res.statusCode).toBe(501)
    expect(res.json().code).toBe(12)
  })

  it('answers 501 for a known route whose method an older node binary lacks', async () => {
    const { app } = await nodeAndGateway({ omitMethods: ['/ixo.claims.v1beta1.Query/DisputeBySubject'] })
    const res = await app.inject({ method: 'GET', url: '/ixo/claims/dispute-by-subject/bafydevclaim003/1' })
    expect(res.statusCode).toBe(501)
    expect(res.json().code).toBe(12)
  })

  it('falls back to the bundled set when the node has no reflection service (auto)', async () => {
    const { app } = await nodeAndGateway({ reflection: false })
    expect((await app.inject({ method: 'GET', url: '/' })).json()).toMatchObject({ descriptors: 'bundled', routes: 27 })
    expect((await app.inject({ method: 'GET', url: '/ixo/entity/params' })).statusCode).toBe(200)
  })

  it('exposes only the configured services and serves legacy prefixes as aliases', async () => {
    const { app } = await nodeAndGateway(
      {},
      { CHAIN_SERVICES: 'ixo.claims.,ixo.token.', CHAIN_ROUTE_ALIASES: '/legacy/ixo=/ixo,/api=/' }
    )
    expect((await app.inject({ method: 'GET', url: '/ixo/entity/params' })).statusCode).toBe(404)
    const canonical = await app.inject({ method: 'GET', url: '/ixo/claims/params' })
    expect((await app.inject({ method: 'GET', url: '/legacy/ixo/claims/params' })).body).toBe(canonical.body)
    expect((await app.inject({ method: 'GET', url: '/api/ixo/token/params' })).statusCode).toBe(200)
    const paths = Object.keys((await app.inject({ method: 'GET', url: '/docs/json' })).json().paths)
    expect(paths).toContain('/ixo/claims/params')
    expect(paths).not.toContain('/legacy/ixo/claims/params')
  })

  it('serves a legacy rename of a whole template, and a rename of a path', async () => {
    const aliases = ['/ixo/collection/{id}/info=/ixo/claims/collection/{id}', '/ixo/collection=/ixo/claims/collections']
    const { app } = await nodeAndGateway({}, { CHAIN_ROUTE_ALIASES: aliases.join(',') })
    const get = async (url: string) => await app.inject({ method: 'GET', url })
    expect((await get('/ixo/collection/1/info')).body).toBe((await get('/ixo/claims/collection/1')).body)
    expect((await get('/ixo/collection/1/info')).json().collection.id).toBe('1')
    expect((await get('/ixo/collection')).body).toBe((await get('/ixo/claims/collections')).body)
    // A whole-template alias renames that template only.
    expect((await get('/ixo/collection/1')).statusCode).toBe(404)
  })

  it('ships a descriptor set that matches proto/ (npm run descriptors regenerates it)', () => {
    const regenerated = buildDescriptorSet(fileURLToPath(new URL('../../proto', import.meta.url)))
    expect(Buffer.from(regenerated).equals(readFileSync(BUNDLED_SET_URL))).toBe(true)
  })
})
