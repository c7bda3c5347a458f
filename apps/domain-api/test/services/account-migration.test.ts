import { randomUUID } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { databaseOptions, migrateToLatest, openDatabase, type Database } from '@impact/persistence'
import { createTestDatabase, type TestDatabase } from '@impact/persistence/testing'
import { createSharedState } from '@impact/shared-state'
import { loadConfig } from '../../src/config.ts'
import { migrations } from '../../src/db/migrations/index.ts'
import { MIGRATION_TABLE } from '../../src/db/open.ts'
import * as createRegistry from '../../src/db/migrations/2026_11_21_163000_create_registry.ts'
import type { DB } from '../../src/db/types.ts'
import { createAccountService } from '../../src/services/accounts.ts'
import { randomAccount } from '../helper.ts'

let testDb: TestDatabase
let database: Database<DB>

beforeAll(async () => {
  testDb = await createTestDatabase()
  database = await openDatabase<DB>({
    ...databaseOptions(loadConfig({ NODE_ENV: 'test', ...testDb.env })),
    migrations: { '2026_11_21_163000_create_registry': createRegistry },
    migrationTable: MIGRATION_TABLE
  })
})
afterAll(async () => {
  await database?.close()
  await testDb?.drop()
})

describe('migration 2026_12_05_090000_add_account_principals', () => {
  it('keeps the roles of an account held by one live key, and grants none to a shared account', async () => {
    const [own, shared, revoked] = [randomAccount(), randomAccount(), randomAccount()]
    const key = (account: string, roles: string[], revokedAt: Date | null = null) => ({
      id: randomUUID(),
      name: 'legacy',
      prefix: 'dk_legacy',
      key_hash: randomUUID(),
      roles,
      account,
      created_by: 'bootstrap',
      created_at: new Date(),
      revoked_at: revokedAt
    })
    await database.db.insertInto('api_keys').values([
      key(own, ['registrar', 'voter']),
      key(shared, ['registrar']),
      key(shared, ['admin']),
      key(revoked, ['admin'], new Date())
    ]).execute()

    await migrateToLatest(database.db, { migrations, migrationTable: MIGRATION_TABLE })

    const state = createSharedState({ prefix: `migration-test-${randomUUID()}:` })
    const accounts = createAccountService({
      db: database.db, state, clock: () => new Date(), cacheTtlMs: 0, log: {} as FastifyBaseLogger
    })
    try {
      expect(await accounts.rolesOf(own)).toEqual(['registrar', 'voter'])
      expect(await accounts.rolesOf(shared)).toEqual([])
      expect(await accounts.rolesOf(revoked)).toEqual([])
    } finally {
      await state.close()
    }
  })
})
