import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { databaseOptions, openDatabase } from '@impact/persistence'
import { createTestDatabase } from '@impact/persistence/testing'
import { expect, it, onTestFinished } from 'vitest'
import { loadConfig } from '../../src/config.ts'
import * as createRegistry from '../../src/db/migrations/2026_11_21_163000_create_registry.ts'
import { MIGRATION_TABLE } from '../../src/db/open.ts'
import { ADMIN_KEY, PROTOCOL, startApp } from '../helper.ts'

it('resolves domains registered before version history was kept, and numbers their next change 2', async () => {
  const testDb = await createTestDatabase()
  // PGlite keeps its files on disk here so the registry of the first release and the current one share them.
  const dataDir = testDb.url === undefined ? mkdtempSync(join(tmpdir(), 'domain-api-versions-')) : undefined
  onTestFinished(async () => {
    await testDb.drop()
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true })
  })
  const env = { ...testDb.env, ...(dataDir !== undefined ? { DATA_DIR: dataDir } : {}) }
  const firstRelease = await openDatabase({
    ...databaseOptions(loadConfig({ NODE_ENV: 'test', ...env })),
    migrations: { '2026_11_21_163000_create_registry': createRegistry },
    migrationTable: MIGRATION_TABLE,
    migrate: 'always'
  })
  const did = 'did:ixo:entity:0000000000000000000000000000abcd'
  const created = new Date('2026-11-01T10:00:00.000Z')
  const updated = new Date('2026-11-02T10:00:00.000Z')
  await sql`insert into domains (did, type, class, controllers, metadata, status, created_by_key, created_by_account,
    created_at, updated_at) values (${did}, 'project', ${PROTOCOL}, ${['did:ixo:ixo1old']}::text[], '{"secret":"x"}',
    'draft', 'old-key', 'did:ixo:ixo1old', ${created}, ${updated})`.execute(firstRelease.db)
  await firstRelease.close()

  const t = await startApp(env, { database: { ...testDb, drop: async () => {} } })
  onTestFinished(async () => { await t.close() })
  const res = await t.app.inject({ method: 'GET', url: `/1.0/identifiers/${did}` })
  expect(res.statusCode).toBe(200)
  const result = res.json()
  expect(result.didDocument).toMatchObject({ id: did, controller: ['did:ixo:ixo1old'] })
  expect(result.didDocumentMetadata).toMatchObject({ versionId: '1', created: created.toISOString(), status: 'draft' })
  const before = await t.app.inject({ method: 'GET', url: `/1.0/identifiers/${did}?versionTime=2026-11-01T12:00:00Z` })
  expect(before.json().didDocumentMetadata.versionId).toBe('1')

  const patch = await t.app.inject({
    method: 'PATCH',
    url: `/v1/domains/${did}`,
    headers: t.auth(ADMIN_KEY),
    payload: { controllers: ['did:ixo:ixo1new'] }
  })
  expect(patch.statusCode).toBe(200)
  const after = (await t.app.inject({ method: 'GET', url: `/1.0/identifiers/${did}` })).json()
  expect(after.didDocument.controller).toEqual(['did:ixo:ixo1new'])
  expect(after.didDocumentMetadata.versionId).toBe('2')
}, 120_000)
