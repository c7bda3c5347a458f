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
import { ADMIN_KEY, PROTOCOL, startApp } from '../helper.ts'

it('keeps existing proposals as verifications, and stops renewed domains reading verified', async () => {
  const testDb = await createTestDatabase()
  const dataDir = testDb.url === undefined ? mkdtempSync(join(tmpdir(), 'domain-api-snapshots-')) : undefined
  onTestFinished(async () => {
    await testDb.drop()
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true })
  })
  const env = { ...testDb.env, ...(dataDir !== undefined ? { DATA_DIR: dataDir } : {}) }
  const earlier = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '2026_12_24_140000'))
  const previousRelease = await openDatabase({
    ...databaseOptions(loadConfig({ NODE_ENV: 'test', ...env })),
    migrations: earlier,
    migrationTable: MIGRATION_TABLE,
    migrate: 'always'
  })
  const did = (n: number) => `did:ixo:entity:${String(n).padStart(32, '0')}`
  const [renewed, verified] = [did(1), did(2)]
  const insert = async (row: string, status: string) => {
    await sql`insert into domains (did, type, class, controllers, metadata, status, created_by_key, created_by_account,
      created_at, updated_at, verified_at) values (${row}, 'project', ${PROTOCOL}, ${['did:ixo:old']}::text[],
      '{}', ${status}, 'old-key', 'did:ixo:old', now(), now(), now())`.execute(previousRelease.db)
  }
  await insert(renewed, 'draft')
  await insert(verified, 'verified')
  const proposal = '00000000-0000-4000-8000-000000000001'
  await sql`insert into verification_proposals (id, domain_did, status, evidence, proposed_by_key, proposed_by_account,
    quorum, quorum_rule, threshold, deadline, created_at) values (${proposal}, ${verified}, 'passed', 'ipfs://x',
    'old-key', 'did:ixo:old', 1, '1', 0.5, now(), now())`.execute(previousRelease.db)
  await previousRelease.close()

  const t = await startApp(env, { database: { ...testDb, drop: async () => {} } })
  onTestFinished(async () => { await t.close() })
  const read = async (path: string) => (await t.app.inject({ method: 'GET', url: path, headers: t.auth(ADMIN_KEY) }))
    .json()
  expect(await read(`/v1/domains/${renewed}`)).toMatchObject({ status: 'draft', verified: false, verifiedAt: null })
  expect(await read(`/v1/domains/${verified}`))
    .toMatchObject({ status: 'verified', verified: true, verifiedHash: null })
  expect(await read(`/v1/verification-proposals/${proposal}`)).toMatchObject({
    kind: 'verify', status: 'passed', snapshotHash: null, snapshot: null, validUntil: null
  })
}, 120_000)
