import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { createTestDatabase, type TestDatabase } from '@impact/persistence/testing'
import { itServesTheBasics } from '@impact/service-kit/testing'

describe('oracle-runtime service basics', () => {
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

  itServesTheBasics({ name: 'oracle-runtime', title: 'Oracle runtime', app: () => app, health: { database: 'connected' } })

  it('documents the UCAN schemes and the routes that need them', async () => {
    const spec = (await app.inject({ method: 'GET', url: '/docs/json' })).json()
    expect(spec.components.securitySchemes.ucanInvocation).toMatchObject({ type: 'http', scheme: 'bearer' })
    expect(spec.components.securitySchemes.ucanDelegation).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-ucan-delegation' })
    expect(spec.paths['/sessions'].post.security).toEqual([{ ucanInvocation: [], ucanAuthType: [] }, { ucanDelegation: [] }])
    expect(spec.paths['/sessions'].post.responses['401'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorBody' })
  })
})
