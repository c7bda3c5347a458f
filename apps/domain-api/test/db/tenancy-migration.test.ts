import { createHash, randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { databaseOptions, openDatabase } from '@impact/persistence'
import { createTestDatabase } from '@impact/persistence/testing'
import { expect, it, onTestFinished } from 'vitest'
import { loadConfig } from '../../src/config.ts'
import { migrations } from '../../src/db/migrations/index.ts'
import { MIGRATION_TABLE } from '../../src/db/open.ts'
import { PROTOCOL, startApp } from '../helper.ts'

it('keeps keys issued before tenancy platform-wide: admins read private metadata, others the public part', async () => {
  const testDb = await createTestDatabase()
  const dataDir = testDb.url === undefined ? mkdtempSync(join(tmpdir(), 'domain-api-tenancy-')) : undefined
  onTestFinished(async () => {
    await testDb.drop()
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true })
  })
  const env = { ...testDb.env, ...(dataDir !== undefined ? { DATA_DIR: dataDir } : {}) }
  const earlier = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '2026_12_24'))
  const previousRelease = await openDatabase({
    ...databaseOptions(loadConfig({ NODE_ENV: 'test', ...env })),
    migrations: earlier,
    migrationTable: MIGRATION_TABLE,
    migrate: 'always'
  })
  const keyOf = async (role: string) => {
    const key = `dk_${randomUUID().replaceAll('-', '')}`
    const account = `did:ixo:old-${role}`
    const hash = createHash('sha256').update(key).digest('hex')
    await sql`insert into api_keys (id, name, prefix, key_hash, roles, account, created_by, created_at)
      values (${randomUUID()}, ${role}, ${key.slice(0, 9)}, ${hash}, ${[role]}::text[], ${account}, 'bootstrap', now())`
      .execute(previousRelease.db)
    await sql`insert into account_roles (account, role, granted_by, granted_at)
      values (${account}, ${role}, 'x', now())`.execute(previousRelease.db)
    return key
  }
  const [adminKey, registrarKey] = [await keyOf('admin'), await keyOf('registrar')]
  const did = 'did:ixo:entity:00000000000000000000000000000001'
  const metadata = { name: 'Stove', private: { phone: '+254700000001' } }
  await sql`insert into domains (did, type, class, controllers, metadata, status, created_by_key, created_by_account,
    created_at, updated_at) values (${did}, 'asset/device', ${PROTOCOL}, ${['did:ixo:household']}::text[],
    ${JSON.stringify(metadata)}, 'draft', 'k', 'did:ixo:household', now(), now())`.execute(previousRelease.db)
  await previousRelease.close()

  const t = await startApp(env, { database: { ...testDb, drop: async () => {} } })
  onTestFinished(async () => { await t.close() })
  const read = async (key: string, url: string) => (await t.app.inject({ url, headers: t.auth(key) })).json()
  expect((await read(adminKey, '/v1/api-keys/current')).organisation).toBeNull()
  expect((await read(adminKey, `/v1/domains/${did}`)).metadata).toEqual(metadata)
  expect((await read(registrarKey, `/v1/domains/${did}`)).metadata).toEqual({ name: 'Stove' })
  const keys = (await read(adminKey, '/v1/api-keys')).items
  expect(keys.map((k: { organisation: string | null }) => k.organisation)).toEqual([null, null])
}, 120_000)
