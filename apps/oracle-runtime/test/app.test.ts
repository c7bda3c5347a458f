import { afterAll, beforeAll, describe } from 'vitest'
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
})
