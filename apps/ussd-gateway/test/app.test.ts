import { Client } from 'undici'
import { describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { createTestDatabase } from '@impact/persistence/testing'
import { itServesTheBasics } from '@impact/service-kit/testing'
import { fileApp, newPhone, setupApp } from './helper.ts'

const redis = process.env.REDIS_URL !== undefined && process.env.REDIS_URL !== ''

describe('ussd-gateway service basics', () => {
  const ctx = fileApp()

  itServesTheBasics({
    name: 'ussd-gateway',
    title: 'USSD gateway',
    app: () => ctx.app,
    health: { database: 'connected', ...(redis ? { redis: 'connected' } : {}) }
  })

  it('keeps the landing and health records to their documented fields', async () => {
    const landing = (await ctx.app.inject({ method: 'GET', url: '/' })).json()
    expect(Object.keys(landing).sort()).toEqual(['environment', 'message', 'status', 'timestamp'])
    const health = (await ctx.app.inject({ method: 'GET', url: '/health' })).json()
    expect(Object.keys(health).sort()).toEqual(
      ['database', 'environment', 'status', 'timestamp', 'uptime', ...(redis ? ['redis'] : [])].sort()
    )
  })

  // Only a server can be left unmigrated: the embedded engine always migrates at start-up.
  it.runIf(process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== '')(
    'is not ready on a server whose migrations have not run',
    async () => {
      const fresh = await createTestDatabase()
      const unmigrated = await buildApp(
        loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...fresh.env, MIGRATE_ON_START: 'never' })
      )
      try {
        const res = await unmigrated.inject({ method: 'GET', url: '/health' })
        expect(res.statusCode).toBe(503)
        expect(res.json()).toMatchObject({ status: 'degraded', database: 'migrations pending' })
      } finally {
        await unmigrated.close()
        await fresh.drop()
      }
    }
  )

  it('serves a request that arrives while it shuts down in the USSD contract, not with a JSON 503', async () => {
    const closing = await setupApp()
    const body = () =>
      new URLSearchParams({
        sessionId: `close-${newPhone()}`,
        serviceCode: '*384*123#',
        phoneNumber: newPhone(),
        text: ''
      }).toString()
    let client: Client | undefined
    let during: { status: number, type: string, text: string } | undefined
    // preClose runs once Fastify marks itself closing and before it drops idle connections: the
    // moment a request on an open keep-alive connection meets a draining server.
    closing.app.addHook('preClose', async () => {
      const res = await client?.request({
        method: 'POST',
        path: '/api/ussd',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: body()
      })
      if (res !== undefined) {
        during = { status: res.statusCode, type: String(res.headers['content-type']), text: await res.body.text() }
      }
    })
    try {
      client = new Client(await closing.app.listen({ host: '127.0.0.1', port: 0 }))
      const before = await client.request({
        method: 'POST',
        path: '/api/ussd',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: body()
      })
      expect(await before.body.text()).toMatch(/^CON Welcome/)
    } finally {
      await closing.close()
      await client?.close()
    }
    expect(during).toMatchObject({
      status: 200,
      type: expect.stringMatching(/^text\/plain/),
      text: expect.stringMatching(/^CON Welcome/)
    })
  })
})
