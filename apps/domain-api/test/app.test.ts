import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { createTestDatabase, type TestDatabase } from '@impact/persistence/testing'

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

  it('answers GET / with the landing record', async () => {
    const res = await app.inject({ method: 'GET', url: '/' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ status: 'ok', message: 'domain-api is running', environment: 'test' })
  })

  it('reports health with a live database ping', async () => {
    const res = await app.inject({ method: 'GET', url: '/health' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ status: 'ok', database: 'connected' })
    expect(Date.parse(res.json().timestamp)).not.toBeNaN()
  })

  it('serves the OpenAPI UI and document at /docs', async () => {
    const ui = await app.inject({ method: 'GET', url: '/docs' })
    expect([200, 302]).toContain(ui.statusCode)
    const spec = await app.inject({ method: 'GET', url: '/docs/json' })
    expect(spec.statusCode).toBe(200)
    expect(spec.json()).toMatchObject({ openapi: '3.1.0', info: { title: 'Domain API' } })
    expect(Object.keys(spec.json().paths)).toContain('/health')
  })

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
