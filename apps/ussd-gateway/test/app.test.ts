import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { createTestDatabase, type TestDatabase } from '@impact/persistence/testing'
import { dropRedisPrefix } from './helper.ts'

describe('ussd-gateway service basics', () => {
  let app: Awaited<ReturnType<typeof buildApp>>
  let database: TestDatabase

  beforeAll(async () => {
    database = await createTestDatabase()
    app = await buildApp(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', REDIS_KEY_PREFIX: `test:ussd:basics:${process.pid}:`, ...database.env, ...(process.env.REDIS_URL !== undefined && process.env.REDIS_URL !== '' ? { REDIS_URL: process.env.REDIS_URL } : {}) }))
  })
  afterAll(async () => {
    await app?.close()
    await database?.drop()
    await dropRedisPrefix(`test:ussd:basics:${process.pid}:`)
  })

  it('answers GET / with the landing record', async () => {
    const res = await app.inject({ method: 'GET', url: '/' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ status: 'ok', message: 'ussd-gateway is running', environment: 'test' })
    expect(Object.keys(res.json()).sort()).toEqual(['environment', 'message', 'status', 'timestamp'])
  })

  it('reports health with a live database ping', async () => {
    const res = await app.inject({ method: 'GET', url: '/health' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ status: 'ok', database: 'connected' })
    expect(Object.keys(res.json()).sort()).toEqual(['database', 'environment', 'status', 'timestamp', 'uptime', ...(process.env.REDIS_URL !== undefined && process.env.REDIS_URL !== '' ? ['redis'] : [])].sort())
    if (process.env.REDIS_URL !== undefined && process.env.REDIS_URL !== '') expect(res.json().redis).toBe('connected')
    expect(Date.parse(res.json().timestamp)).not.toBeNaN()
  })

  it('serves the OpenAPI UI and document at /docs', async () => {
    const ui = await app.inject({ method: 'GET', url: '/docs' })
    expect([200, 302]).toContain(ui.statusCode)
    const spec = await app.inject({ method: 'GET', url: '/docs/json' })
    expect(spec.statusCode).toBe(200)
    expect(spec.json()).toMatchObject({ openapi: '3.1.0', info: { title: 'USSD gateway' } })
    expect(Object.keys(spec.json().paths)).toContain('/health')
  })
})
