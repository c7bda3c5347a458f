import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '@impact/persistence/testing'
import { startTcpRelay, type TcpRelay } from '@impact/service-kit/testing'
import { ADMIN_KEY, startApp, type TestApp } from './helper.ts'
import { captureLogs } from '@impact/service-kit/testing'
import { hookedReceiver, waitFor } from './webhook-receiver.ts'

// Replicas and a database that goes away need a PostgreSQL server: this runs in the servers pass.
const servers = (process.env.DATABASE_URL ?? '') !== '' && (process.env.REDIS_URL ?? '') !== ''

const FAST = { WEBHOOK_POLL_INTERVAL_MS: '20', WEBHOOK_RETRY_BASE_MS: '20', WEBHOOK_RETRY_MAX_MS: '100' }

describe.runIf(servers)('webhook delivery on PostgreSQL', () => {
  let database: TestDatabase
  let relay: TcpRelay
  let a: TestApp
  let b: TestApp
  const logs = captureLogs()

  beforeAll(async () => {
    database = await createTestDatabase()
    const url = new URL(database.url!)
    relay = await startTcpRelay({ host: url.hostname, port: Number(url.port || 5432) })
    a = await startApp(
      { ...FAST, LOG_LEVEL: 'warn', DATABASE_URL: relay.through(database.url!) },
      { database, logStream: logs.stream }
    )
    b = await startApp(FAST, { database })
  }, 60_000)
  afterAll(async () => {
    await a?.close()
    await b?.close()
    await relay?.close()
    await database?.drop()
  })

  it('sends each event once from two replicas claiming the same deliveries', async () => {
    const { receiver } = await hookedReceiver(a, { events: ['created'] })
    const owner = await a.issueKey(['registrar'])
    const dids = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => (await (i % 2 === 0 ? a : b).createDomain(owner.key)).did)
    )
    await waitFor(() => receiver.received.length >= dids.length, 'every created event')
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(receiver.received).toHaveLength(dids.length)
    expect(receiver.received.map((r) => JSON.parse(r.body).domainDid).sort()).toEqual([...dids].sort())
  }, 60_000)

  it('keeps delivering after its database was unreachable for a while', async () => {
    const { receiver } = await hookedReceiver(a, { events: ['created'] })
    try {
      // Replica b reaches the database directly; only a (behind the relay) is to lose it.
      await b.close()
      relay.cut()
      await waitFor(
        () => logs.text().includes('webhook delivery worker: pass failed'),
        'the worker to notice the outage'
      )
      const during = await a.app.inject({ method: 'GET', url: '/v1/events', headers: a.auth(ADMIN_KEY) })
      expect(during.statusCode).toBe(503)
      relay.restore()
      const owner = await a.issueKey(['registrar'])
      const domain = await a.createDomain(owner.key)
      await waitFor(
        () => receiver.received.some((r) => JSON.parse(r.body).domainDid === domain.did),
        'delivery after the outage'
      )
    } finally {
      relay.restore()
    }
  }, 60_000)
})
