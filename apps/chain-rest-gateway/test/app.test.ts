import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'

describe('chain-rest-gateway service basics', () => {
  let app: Awaited<ReturnType<typeof buildApp>>

  beforeAll(async () => {
    app = await buildApp(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent' }))
  })
  afterAll(async () => {
    await app?.close()
  })

  it('answers GET / with the landing record', async () => {
    const res = await app.inject({ method: 'GET', url: '/' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ status: 'ok', message: 'chain-rest-gateway is running', environment: 'test' })
  })

  it('reports health', async () => {
    const res = await app.inject({ method: 'GET', url: '/health' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ status: 'ok' })
    expect(Date.parse(res.json().timestamp)).not.toBeNaN()
  })

  it('serves the OpenAPI UI and document at /docs', async () => {
    const ui = await app.inject({ method: 'GET', url: '/docs' })
    expect([200, 302]).toContain(ui.statusCode)
    const spec = await app.inject({ method: 'GET', url: '/docs/json' })
    expect(spec.statusCode).toBe(200)
    expect(spec.json()).toMatchObject({ openapi: '3.1.0', info: { title: 'Chain REST gateway' } })
    expect(Object.keys(spec.json().paths)).toContain('/health')
  })
})
