import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { itServesTheBasics } from '@impact/service-kit/testing'
import { startApp, type TestApp } from './helper.ts'

describe('domain-api service basics', () => {
  let t: TestApp

  beforeAll(async () => { t = await startApp() })
  afterAll(async () => { await t?.close() })

  itServesTheBasics({ name: 'domain-api', title: 'Domain API', app: () => t.app, health: { database: 'connected' } })

  it('documents the API key and UCAN schemes and the routes that need them', async () => {
    const spec = (await t.app.inject({ method: 'GET', url: '/docs/json' })).json()
    expect(spec.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' })
    expect(spec.components.securitySchemes.ucan).toMatchObject({ type: 'http', scheme: 'bearer' })
    expect(spec.paths['/v1/domains'].post.security).toEqual([{ apiKey: [] }, { ucan: [] }])
    expect(spec.paths['/v1/api-keys'].post.security).toEqual([{ apiKey: [] }])
    expect(spec.paths['/v1/domains'].post.parameters).toEqual(expect.arrayContaining([
      expect.objectContaining({ in: 'header', name: 'x-auth-type' })
    ]))
    expect(spec.paths['/v1/domains'].post.responses['201'].headers.location).toBeDefined()
    expect(spec.paths['/v1/accounts/{did}/roles'].put.responses['200']).toBeDefined()
    expect(spec.paths['/'].get.responses['200'].content['application/json'].schema.properties.did).toBeDefined()
    expect(Object.keys(spec.paths)).toEqual(expect.arrayContaining([
      '/v1/domains/{did}', '/v1/domains/{did}/history', '/v1/domains/{did}/verification-proposals',
      '/v1/verification-proposals/{id}/votes', '/v1/api-keys', '/v1/api-keys/{id}', '/v1/accounts/{did}/roles'
    ]))
  })

  it('announces its DID on GET /', async () => {
    const body = (await t.app.inject({ method: 'GET', url: '/' })).json()
    expect(body.did).toMatch(/^did:key:z6Mk/)
  })
})
