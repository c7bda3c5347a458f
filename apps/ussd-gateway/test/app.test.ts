import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { createTestDatabase, type TestDatabase } from '@impact/persistence/testing'
import { itServesTheBasics } from '@impact/service-kit/testing'
import { dropRedisPrefix } from './helper.ts'

const redis = process.env.REDIS_URL !== undefined && process.env.REDIS_URL !== ''
const prefix = `test:ussd:basics:${process.pid}:`

describe('ussd-gateway service basics', () => {
  let app: Awaited<ReturnType<typeof buildApp>>
  let database: TestDatabase

  beforeAll(async () => {
    database = await createTestDatabase()
    app = await buildApp(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', REDIS_KEY_PREFIX: prefix, ...database.env, ...(redis ? { REDIS_URL: process.env.REDIS_URL } : {}) }))
  })
  afterAll(async () => {
    await app?.close()
    await database?.drop()
    await dropRedisPrefix(prefix)
  })

  itServesTheBasics({ name: 'ussd-gateway', title: 'USSD gateway', app: () => app, health: { database: 'connected', ...(redis ? { redis: 'connected' } : {}) } })

  it('keeps the landing and health records to their documented fields', async () => {
    const landing = (await app.inject({ method: 'GET', url: '/' })).json()
    expect(Object.keys(landing).sort()).toEqual(['environment', 'message', 'status', 'timestamp'])
    const health = (await app.inject({ method: 'GET', url: '/health' })).json()
    expect(Object.keys(health).sort()).toEqual(['database', 'environment', 'status', 'timestamp', 'uptime', ...(redis ? ['redis'] : [])].sort())
  })
})
