import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { createTestDatabase, type TestDatabase } from '@impact/persistence/testing'
import { itServesTheBasics } from '@impact/service-kit/testing'

describe('domain-api service basics', () => {
  let app: Awaited<ReturnType<typeof buildApp>>
  let database: TestDatabase

  beforeAll(async () => {
    database = await createTestDatabase()
    app = await buildApp(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...database.env }))
  })
  afterAll(async () => {
    await app?.close()
    await database?.drop()
  })

  itServesTheBasics({ name: 'domain-api', title: 'Domain API', app: () => app, health: { database: 'connected' } })

  it('documents the API key scheme and the routes that need it', async () => {
    const spec = (await app.inject({ method: 'GET', url: '/docs/json' })).json()
    expect(spec.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' })
    expect(spec.paths['/v1/domains'].post.security).toEqual([{ apiKey: [] }])
    expect(spec.paths['/v1/domains'].post.responses['201'].headers.location).toBeDefined()
    expect(Object.keys(spec.paths)).toEqual(expect.arrayContaining([
      '/v1/domains/{did}', '/v1/domains/{did}/history', '/v1/domains/{did}/verification-proposals',
      '/v1/verification-proposals/{id}/votes', '/v1/api-keys', '/v1/api-keys/{id}'
    ]))
  })
})
