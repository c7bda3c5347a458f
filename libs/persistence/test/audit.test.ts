import { describe, expect, it, onTestFinished } from 'vitest'
import { createAuditStore, createAuditTable, openDatabase, type AuditRecord } from '../src/index.ts'
import { createTestDatabase } from '../src/testing.ts'

const DAY_MS = 24 * 60 * 60 * 1000

async function auditDatabase () {
  const test = await createTestDatabase()
  const database = await openDatabase({
    url: test.url,
    dataDir: test.dataDir,
    migrate: 'always',
    migrationTable: 'audit_test_migrations',
    migrations: { '2026_12_24_090000_create_audit': { up: async (db) => { await createAuditTable(db, 'audit') } } }
  })
  onTestFinished(async () => {
    await database.close()
    await test.drop()
  })
  return database
}

const event = (action: string, details: Record<string, unknown> = {}): AuditRecord => ({
  action,
  outcome: 'success',
  actor: 'C1A2B3C4D',
  subject: null,
  ip: '127.0.0.1',
  requestId: 'r-1',
  traceId: null,
  details
})

describe('createAuditStore', () => {
  it('reads newest first a page at a time, filtered by action', async () => {
    const { db } = await auditDatabase()
    const store = createAuditStore({ db, table: 'audit', retentionDays: 30 })
    for (const action of ['auth.pin', 'auth.lockout', 'auth.pin', 'roles.changed']) {
      await store.write(event(action, { n: 1, roles: ['agent'] }))
    }
    const first = await store.page({ limit: 3 })
    expect(first.items.map((item) => item.action)).toEqual(['roles.changed', 'auth.pin', 'auth.lockout'])
    expect(first.items[0]).toMatchObject({ details: { n: 1, roles: ['agent'] }, ip: '127.0.0.1', outcome: 'success' })
    expect(first.items[0]!.at).toBeInstanceOf(Date)
    const rest = await store.page({ limit: 3, before: first.nextCursor ?? undefined })
    expect(rest).toMatchObject({ items: [{ action: 'auth.pin' }], nextCursor: null })
    const pins = await store.page({ limit: 10, action: 'auth.pin' })
    expect(pins.items).toHaveLength(2)
    expect((await store.page({ limit: 10, before: 'not-a-cursor' })).items).toHaveLength(4)
  })

  it('deletes only what is past the retention', async () => {
    const { db } = await auditDatabase()
    let now = new Date()
    const store = createAuditStore({ db, table: 'audit', retentionDays: 2, now: () => now })
    await store.write(event('auth.pin'))
    expect(await store.prune()).toBe(0)
    now = new Date(now.getTime() + 3 * DAY_MS)
    await store.write(event('auth.lockout'))
    expect(await store.prune()).toBe(1)
    expect((await store.page({ limit: 10 })).items.map((item) => item.action)).toEqual(['auth.lockout'])
  })
})
