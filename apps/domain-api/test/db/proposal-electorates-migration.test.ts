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
import { vote } from '../governance.ts'
import { PROTOCOL, startApp } from '../helper.ts'

const OPEN = '00000000-0000-4000-8000-000000000001'
const CLOSED = '00000000-0000-4000-8000-000000000002'

it('gives proposals opened before electorates were recorded one, and keeps each account\'s latest vote', async () => {
  const testDb = await createTestDatabase()
  const dataDir = testDb.url === undefined ? mkdtempSync(join(tmpdir(), 'domain-api-electorates-')) : undefined
  onTestFinished(async () => {
    await testDb.drop()
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true })
  })
  const env = { ...testDb.env, ...(dataDir !== undefined ? { DATA_DIR: dataDir } : {}) }
  const earlier = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '2026_12_21'))
  const before = await openDatabase({
    ...databaseOptions(loadConfig({ NODE_ENV: 'test', ...env })),
    migrations: earlier,
    migrationTable: MIGRATION_TABLE,
    migrate: 'always'
  })
  const at = new Date('2026-12-01T10:00:00.000Z')
  const deadline = new Date(Date.now() + 86_400_000)
  const db = before.db
  for (const [did, status] of [['0000000000000000000000000000a001', 'verification_submitted'],
    ['0000000000000000000000000000a002', 'verified']]) {
    await sql`insert into domains (did, type, class, controllers, metadata, status, created_by_key,
      created_by_account, created_at, updated_at) values (${`did:ixo:entity:${did}`}, 'project', ${PROTOCOL},
      ${['did:ixo:owner']}::text[], '{}', ${status}, 'k', 'did:ixo:owner', ${at}, ${at})`.execute(db)
  }
  for (const [id, did, status] of [[OPEN, 'a001', 'open'], [CLOSED, 'a002', 'passed']]) {
    await sql`insert into verification_proposals (id, domain_did, status, evidence, proposed_by_key,
      proposed_by_account, quorum, threshold, yes, deadline, created_at) values (${id},
      ${`did:ixo:entity:0000000000000000000000000000${did}`}, ${status}, 'https://e.example', 'k',
      'did:ixo:officer', 3, 0.6, ${status === 'open' ? 1 : 2}, ${deadline}, ${at})`.execute(db)
  }
  for (const account of ['did:ixo:v1', 'did:ixo:v2', 'did:ixo:v3', 'did:ixo:owner', 'did:ixo:officer']) {
    await sql`insert into account_roles (account, role, granted_by, granted_at)
      values (${account}, 'voter', 'admin', ${at})`.execute(db)
  }
  // The closed proposal counted two keys of one account, as votes were counted before accounts.
  for (const [proposal, key, account, castAt] of [[OPEN, 'k-v1', 'did:ixo:v1', at],
    [CLOSED, 'k-v1', 'did:ixo:v1', at], [CLOSED, 'k-v1b', 'did:ixo:v1', new Date(at.getTime() + 1000)]] as const) {
    await sql`insert into verification_votes (proposal_id, voter_key, voter_account, vote, cast_at)
      values (${proposal}, ${key}, ${account}, 'yes', ${castAt})`.execute(db)
  }
  await before.close()

  const t = await startApp(env, { database: { ...testDb, drop: async () => {} } })
  onTestFinished(async () => { await t.close() })
  const read = async (id: string) =>
    (await t.app.inject({ url: `/v1/verification-proposals/${id}`, headers: t.auth(t.config.DOMAIN_API_ADMIN_KEY!) }))
      .json()

  expect(await read(OPEN)).toMatchObject({
    status: 'open',
    quorumRule: '3',
    electorate: { source: 'voter-role', size: 3, vetoers: 0 },
    eligible: { voters: ['did:ixo:v1', 'did:ixo:v2', 'did:ixo:v3'], vetoers: [] },
    tally: { yes: 1, total: 1 }
  })
  const closed = await read(CLOSED)
  expect(closed).toMatchObject({ electorate: { source: 'legacy', size: 1 }, eligible: { voters: ['did:ixo:v1'] } })
  expect(closed.votes.map((v: { keyId: string, supersededAt: string | null }) => [v.keyId, v.supersededAt]))
    .toEqual([['k-v1', '2026-12-01T10:00:01.000Z'], ['k-v1b', null]])

  const v2 = await t.issueKey(['voter'], 'did:ixo:v2')
  expect((await vote(t, OPEN, v2.key)).statusCode).toBe(201)
  const owner = await t.issueKey(['voter'], 'did:ixo:owner')
  expect((await vote(t, OPEN, owner.key)).json().code).toBe('DOMAIN_VOTER_CONFLICT')
}, 120_000)
