import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { itServesTheBasics } from '@impact/service-kit/testing'
import { startApp, type TestApp } from './helper.ts'

describe('domain-api service basics', () => {
  let t: TestApp

  beforeAll(async () => { t = await startApp() })
  afterAll(async () => { await t?.close() })

  itServesTheBasics({ name: 'domain-api', title: 'Domain API', app: () => t.app, health: { database: 'connected' } })

  it('documents the API key scheme and the routes that need it', async () => {
    const spec = (await t.app.inject({ method: 'GET', url: '/docs/json' })).json()
    expect(spec.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' })
    expect(spec.paths['/v1/domains'].post.security).toEqual([{ apiKey: [] }])
    expect(spec.paths['/v1/domains'].post.responses['201'].headers.location).toBeDefined()
    expect(Object.keys(spec.paths)).toEqual(expect.arrayContaining([
      '/v1/domains/{did}', '/v1/domains/{did}/history', '/v1/domains/{did}/verification-proposals',
      '/v1/verification-proposals/{id}/votes', '/v1/api-keys', '/v1/api-keys/{id}'
    ]))
  })
})
