import { describe, expect, it, onTestFinished } from 'vitest'
import { buildTestApp } from './helper.ts'

describe('GET /health', () => {
  it('reports every dependency and answers 503 when one is down', async () => {
    let databaseUp = true
    const app = await buildTestApp({
      health: {
        checks: {
          database: async () => { if (!databaseUp) throw new Error('down') },
          redis: async () => {}
        },
        landing: { message: 'kit is running', extra: () => ({ oracleDid: 'did:key:z6Mk' }) }
      }
    })
    onTestFinished(async () => { await app.close() })

    const healthy = await app.inject({ method: 'GET', url: '/health' })
    expect(healthy.statusCode).toBe(200)
    expect(healthy.json())
      .toMatchObject({ status: 'ok', environment: 'test', database: 'connected', redis: 'connected' })
    expect(typeof healthy.json().uptime).toBe('number')

    databaseUp = false
    const degraded = await app.inject({ method: 'GET', url: '/health' })
    expect(degraded.statusCode).toBe(503)
    expect(degraded.json()).toMatchObject({ status: 'degraded', database: 'disconnected', redis: 'connected' })

    const live = await app.inject({ method: 'GET', url: '/health/live' })
    expect(live.statusCode).toBe(200)

    databaseUp = true
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200)

    const landing = await app.inject({ method: 'GET', url: '/' })
    expect(landing.json()).toMatchObject({
      status: 'ok',
      message: 'kit is running',
      environment: 'test',
      oracleDid: 'did:key:z6Mk'
    })
  })

  it('reports the state a failing check names itself (migrations pending), as not ready', async () => {
    const pending = Object.assign(new Error('migrations not applied'), { healthState: 'migrations pending' })
    const app = await buildTestApp({ health: { checks: { database: async () => { throw pending } } } })
    onTestFinished(async () => { await app.close() })
    const res = await app.inject({ method: 'GET', url: '/health' })
    expect(res.statusCode).toBe(503)
    expect(res.json()).toMatchObject({ status: 'degraded', database: 'migrations pending' })
  })

  it('treats a hanging check as down after the timeout', async () => {
    const hanging = async () => await new Promise<void>(() => {})
    const app = await buildTestApp({ health: { checks: { database: hanging }, timeoutMs: 50 } })
    onTestFinished(async () => { await app.close() })
    const res = await app.inject({ method: 'GET', url: '/health' })
    expect(res.statusCode).toBe(503)
    expect(res.json().database).toBe('disconnected')
  })
})

describe('GET /health advisory checks', () => {
  it('reports an advisory dependency that is down as degraded, still 200; a critical one still fails', async () => {
    let providerUp = false
    let databaseUp = true
    const app = await buildTestApp({
      health: {
        checks: { database: async () => { if (!databaseUp) throw new Error('down') } },
        advisory: {
          modelProvider: async () => {
            if (!providerUp) throw Object.assign(new Error('401'), { healthState: 'unauthorized' })
          }
        }
      }
    })
    onTestFinished(async () => { await app.close() })

    const degraded = await app.inject({ method: 'GET', url: '/health' })
    expect(degraded.statusCode).toBe(200)
    expect(degraded.json()).toMatchObject({ status: 'degraded', database: 'connected', modelProvider: 'unauthorized' })

    providerUp = true
    const ok = await app.inject({ method: 'GET', url: '/health' })
    expect(ok.statusCode).toBe(200)
    expect(ok.json()).toMatchObject({ status: 'ok', database: 'connected', modelProvider: 'connected' })

    databaseUp = false
    const down = await app.inject({ method: 'GET', url: '/health' })
    expect(down.statusCode).toBe(503)
    expect(down.json()).toMatchObject({ status: 'degraded', database: 'disconnected', modelProvider: 'connected' })
  })
})

describe('GET /health report', () => {
  it('adds informational entries without changing the status', async () => {
    const app = await buildTestApp({
      health: { checks: { chain: async () => {} }, report: () => ({ 'upstream 127.0.0.1:9090': 'disconnected' }) }
    })
    onTestFinished(async () => { await app.close() })
    const res = await app.inject({ method: 'GET', url: '/health' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ status: 'ok', chain: 'connected', 'upstream 127.0.0.1:9090': 'disconnected' })
  })
})
