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

it('places domains registered before placement was kept, from their links', async () => {
  const testDb = await createTestDatabase()
  const dataDir = testDb.url === undefined ? mkdtempSync(join(tmpdir(), 'domain-api-placement-')) : undefined
  onTestFinished(async () => {
    await testDb.drop()
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true })
  })
  const env = { ...testDb.env, ...(dataDir !== undefined ? { DATA_DIR: dataDir } : {}) }
  const earlier = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '2026_12_22'))
  const previousRelease = await openDatabase({
    ...databaseOptions(loadConfig({ NODE_ENV: 'test', ...env })),
    migrations: earlier,
    migrationTable: MIGRATION_TABLE,
    migrate: 'always'
  })
  const did = (n: number) => `did:ixo:entity:${String(n).padStart(32, '0')}`
  const [organisation, project, stove, loose] = [did(1), did(2), did(3), did(4)]
  const insert = async (row: string, type: string, links: Record<string, string>, externalId: string | null,
    cls = PROTOCOL) => {
    await sql`insert into domains (did, type, class, controllers, metadata, status, created_by_key, created_by_account,
      created_at, updated_at, document, external_id) values (${row}, ${type}, ${cls}, ${['did:ixo:old']}::text[],
      '{}', 'draft', 'old-key', 'did:ixo:old', now(), now(), ${JSON.stringify({ links })}, ${externalId})`
      .execute(previousRelease.db)
  }
  await insert(organisation, 'dao', {}, null)
  await insert(project, 'project', { organisation }, null)
  await insert(stove, 'asset/device', { parent: project }, 'SN-1', 'did:ixo:protocol/other-stoves')
  await insert(loose, 'asset/device', {}, 'SN-1')
  await previousRelease.close()

  const t = await startApp(env, { database: { ...testDb, drop: async () => {} } })
  onTestFinished(async () => { await t.close() })
  const read = async (path: string) => (await t.app.inject({ method: 'GET', url: path, headers: t.auth(ADMIN_KEY) }))
    .json()
  expect(await read(`/v1/domains/${stove}`)).toMatchObject({ organisation, project })
  expect(await read(`/v1/domains/${project}`)).toMatchObject({ organisation, project: null })
  expect((await read(`/v1/domains?organisation=${organisation}`)).items.map((d: { did: string }) => d.did).sort())
    .toEqual([project, stove])
  // Inside an organisation a serial is unique per type whatever the class; the loose stove's stays per class.
  const registrar = await t.issueKey(['registrar'])
  const again = await t.app.inject({
    method: 'POST',
    url: '/v1/domains',
    headers: t.auth(registrar.key),
    payload: { type: 'Device', class: PROTOCOL, externalId: 'SN-1', links: { parent: project } }
  })
  expect(again.statusCode).toBe(409)
  expect(again.json().message).toContain(stove)
}, 120_000)
