import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSharedState, type SharedState } from '@impact/shared-state'
import { createTestDatabase, type TestDatabase } from '@impact/persistence/testing'
import type { Database } from '@impact/persistence'
import { loadConfig } from '../../src/config.ts'
import { openAppDatabase } from '../../src/db/open.ts'
import { saveLanguage } from '../../src/db/preferences.repository.ts'
import type { DB } from '../../src/db/types.ts'
import { createPreferences } from '../../src/services/preferences.ts'
import { TEST_PIN_KEY } from '../helper.ts'

const HOUR = 60 * 60 * 1000
const phone = (i: number) => `+2547${String(i).padStart(8, '0')}`

describe('phone language preferences without Redis', () => {
  let testDb: TestDatabase
  let database: Database<DB>
  let state: SharedState

  beforeAll(async () => {
    testDb = await createTestDatabase()
    database = await openAppDatabase(
      loadConfig({
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
        PIN_ENCRYPTION_KEY: TEST_PIN_KEY,
        ...testDb.env,
        MIGRATE_ON_START: 'always'
      })
    )
    state = createSharedState({ url: undefined, prefix: 'test:' })
  })
  afterAll(async () => {
    await state.close()
    await database.close()
    await testDb.drop()
  })

  it('answers from its own cache, and lets go of an entry within an hour, ' +
    'so another replica\'s change is seen', async () => {
    let now = Date.now()
    const preferences = createPreferences(database.db, state, { now: () => now })
    expect(await preferences.language(phone(1))).toBe('en')
    // Another replica on the same database (no Redis between them) changes the language.
    await saveLanguage(database.db, phone(1), 'sw')
    expect(await preferences.language(phone(1))).toBe('en')
    now += HOUR + 1
    expect(await preferences.language(phone(1))).toBe('sw')
    // A change made through this replica is seen at once.
    await preferences.save(phone(1), 'en')
    expect(await preferences.language(phone(1))).toBe('en')
    expect(await state.get(`lang:${phone(1)}`)).toBeNull()
  })

  it('keeps a bounded number of phones and still answers each its own language', async () => {
    const preferences = createPreferences(database.db, state, { localCapacity: 4 })
    for (let i = 100; i < 150; i++) await preferences.save(phone(i), i % 3 === 0 ? 'sw' : 'en')
    for (let i = 100; i < 150; i++) expect(await preferences.language(phone(i))).toBe(i % 3 === 0 ? 'sw' : 'en')
    expect(await preferences.language(phone(999))).toBe('en')
  })
})
