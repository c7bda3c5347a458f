import { createServer, type Server, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Dialer, fileApp, OPERATOR_TOKEN, setupApp, type TestContext } from './helper.ts'

// The shared state (Redis) down or hung: every USSD answer stays in its contract, within the hop deadline.
describe('Redis unreachable', () => {
  // Nothing listens on port 1: every shared-state command fails as in a Redis outage.
  const ctx = fileApp({ REDIS_URL: 'redis://127.0.0.1:1' })

  it('answers hops with the unavailable END and the JSON routes with 503 SERVICE_UNAVAILABLE, never 500', async () => {
    // All at once: each waits for the client's reconnection attempts before it fails.
    const [hop, events, sessions, health] = await Promise.all([
      new Dialer(ctx.app).dial(),
      ctx.app.inject({
        method: 'POST',
        url: '/api/ussd/events',
        payload: { sessionId: 'ATUid_gone', phoneNumber: '+254712345678', status: 'Success' }
      }),
      ctx.app.inject({
        method: 'GET',
        url: '/api/ussd/sessions',
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}` }
      }),
      ctx.app.inject({ method: 'GET', url: '/health' })
    ])
    expect(hop).toMatchObject({ status: 200, body: 'END Service temporarily unavailable. Please try again later.' })
    for (const res of [events, sessions]) {
      expect(res.statusCode).toBe(503)
      expect(res.json()).toMatchObject({ statusCode: 503, code: 'SERVICE_UNAVAILABLE' })
    }
    expect(health.statusCode).toBe(503)
    expect(health.json()).toMatchObject({ redis: 'disconnected' })
  }, 15_000)
})

describe('Redis not answering', () => {
  let ctx: TestContext
  let silent: Server
  const sockets = new Set<Socket>()
  const DEADLINE_MS = 1000
  beforeAll(async () => {
    // Accepts connections and never replies (a hung Redis): ioredis would queue every command until it gave up.
    silent = createServer((socket) => {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
    })
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const { port } = silent.address() as { port: number }
    ctx = await setupApp({ REDIS_URL: `redis://127.0.0.1:${port}`, USSD_HOP_DEADLINE_MS: String(DEADLINE_MS) })
  })
  afterAll(async () => {
    await ctx?.close()
    for (const socket of sockets) socket.destroy()
    await new Promise((resolve) => silent?.close(resolve))
  })

  it('ends the hop with the unavailable END within its deadline, rate limits included', async () => {
    const started = Date.now()
    const [first, second] = await Promise.all([new Dialer(ctx.app).dial(), new Dialer(ctx.app).dial()])
    for (const hop of [first, second]) {
      expect(hop).toMatchObject({ status: 200, body: 'END Service temporarily unavailable. Please try again later.' })
    }
    expect(Date.now() - started).toBeLessThan(DEADLINE_MS)
    const events = await ctx.app.inject({
      method: 'POST',
      url: '/api/ussd/events',
      payload: { sessionId: 'ATUid_gone', phoneNumber: '+254712345678', status: 'Success' }
    })
    expect(events.statusCode).toBe(503)
    expect(events.json()).toMatchObject({ statusCode: 503, code: 'SERVICE_UNAVAILABLE' })
  })
})
