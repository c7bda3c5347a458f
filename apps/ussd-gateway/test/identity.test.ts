import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase, type Database, type MigrationSet } from '@impact/persistence'
import { createTestDatabase } from '@impact/persistence/testing'
import { freshIdentity } from '@impact/service-kit/testing'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { findAccount } from '../src/db/accounts.repository.ts'
import { migrations as allMigrations } from '../src/db/migrations/index.ts'
import { MIGRATION_TABLE } from '../src/db/open.ts'
import type { DB } from '../src/db/types.ts'
import { createAccountKeys } from '../src/services/account-keys.ts'
import { loadKeyring } from '../src/services/pin-keyring.ts'
import { createPinVault } from '../src/services/pin-vault.ts'
import {
  accountView,
  atPinPrompt,
  createAccount,
  newPhone,
  OPERATOR_TOKEN,
  setupApp,
  TEST_PIN_KEY,
  type TestApp
} from './helper.ts'

const ROTATED_KEY = 'e'.repeat(64)
const IDENTITY_MIGRATION = '2026_12_10_090000_add_account_identity'

describe('the gateway\'s identity', () => {
  it('announces a did:key on GET / and keeps it across restarts on one DATA_DIR', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ussd-identity-'))
    try {
      const didOf = async () => {
        const ctx = await setupApp({ DATA_DIR: dir, NODE_ENV: 'development' })
        try {
          return (await ctx.app.inject({ method: 'GET', url: '/' })).json().did as string
        } finally {
          await ctx.close()
        }
      }
      const first = await didOf()
      expect(first).toMatch(/^did:key:z6Mk/)
      expect(await didOf()).toBe(first)
      expect((await stat(join(dir, 'ussd-private-key'))).mode & 0o777).toBe(0o600)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }, 120_000)

  it('uses USSD_PRIVATE_KEY when configured', async () => {
    const identity = await freshIdentity()
    const ctx = await setupApp({ USSD_PRIVATE_KEY: identity.key })
    try {
      expect((await ctx.app.inject({ method: 'GET', url: '/' })).json().did).toBe(identity.did)
    } finally {
      await ctx.close()
    }
  })
})

/**
 * An app, then the database it used, one after the other on one store: a PGlite cluster on disk (embedded
 * mode; one process at a time may open it) or a PostgreSQL test database. The rows are read in between.
 */
async function storeOfTurns () {
  const database = await createTestDatabase()
  const dir = await mkdtemp(join(tmpdir(), 'ussd-accounts-'))
  const env = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    OPERATOR_TOKEN,
    PIN_ENCRYPTION_KEY: TEST_PIN_KEY,
    PIN_ENCRYPTION_KEY_ID: 'k1',
    ...database.env,
    // The embedded cluster on disk; on a server, the directory keeps only the gateway's key.
    DATA_DIR: dir,
    MIGRATE_ON_START: 'always'
  }
  const open = async (migrations: MigrationSet = allMigrations) => await openDatabase<DB>({
    url: database.url,
    dataDir: dir,
    migrations,
    migrationTable: MIGRATION_TABLE,
    migrate: 'always'
  })
  return {
    env,
    /** Runs `work` on an app built from `env` with `extra`, then closes it. */
    async withApp<T> (extra: Record<string, string>, work: (app: TestApp) => Promise<T>): Promise<T> {
      const app = await buildApp(loadConfig({ ...env, ...extra }))
      try {
        return await work(app)
      } finally {
        await app.close()
      }
    },
    /** Runs `work` on the database alone (migrated by `migrations`), then closes it. */
    async withDatabase<T> (work: (db: Database<DB>['db']) => Promise<T>, migrations?: MigrationSet): Promise<T> {
      const direct = await open(migrations)
      try {
        return await work(direct.db)
      } finally {
        await direct.close()
      }
    },
    async drop () {
      await database.drop()
      await rm(dir, { recursive: true, force: true })
    }
  }
}

const keysOf = (key: string, id: string, previous?: string) => createAccountKeys(loadKeyring({
  PIN_ENCRYPTION_KEY: key,
  PIN_ENCRYPTION_KEY_ID: id,
  PIN_ENCRYPTION_PREVIOUS_KEYS: previous,
  DATA_DIR: 'memory://'
}))
const UNREADABLE = expect.objectContaining({ code: 'USSD_ACCOUNT_KEY_UNREADABLE' })
const login = async (app: TestApp, customerId: string) => (await (await atPinPrompt({ app }, customerId)).send('48213'))

// Each test starts apps and opens the database in turn, on disk in embedded mode: slower than one app in memory.
describe('account identities', { timeout: 60_000 }, () => {
  let store: Awaited<ReturnType<typeof storeOfTurns>>
  beforeAll(async () => { store = await storeOfTurns() })
  afterAll(async () => { await store?.drop() })

  it('gives every new account its own did:key, whose key is sealed at rest and signs as that DID', async () => {
    const [view, otherDid] = await store.withApp({}, async (app) => {
      const { customerId } = await createAccount({ app })
      const { customerId: other } = await createAccount({ app })
      return [(await accountView({ app }, customerId)).json(), (await accountView({ app }, other)).json().did]
    })
    expect(view.did).toMatch(/^did:key:z6Mk[1-9A-HJ-NP-Za-km-z]+$/)
    expect(otherDid).toMatch(/^did:key:z6Mk/)
    expect(otherDid).not.toBe(view.did)

    const account = await store.withDatabase(async (db) => await findAccount(db, view.customerId))
    if (account === undefined) throw new Error('the account is not stored')
    expect(account.did).toBe(view.did)
    expect(account.signingKeyId).toBe('k1')
    expect(account.signingKeyRecord).toMatch(/^v1\$k1\$/)
    const signer = keysOf(TEST_PIN_KEY, 'k1').signerFor(account)
    expect(signer.did()).toBe(view.did)
    const payload = new TextEncoder().encode('register stove SN-1')
    expect(await signer.verifier.verify(payload, await signer.sign(payload))).toBe(true)

    // Another key opens nothing, and the record on another account's row does not sign as that account.
    expect(() => keysOf(ROTATED_KEY, 'k2').signerFor(account)).toThrow(UNREADABLE)
    expect(() => keysOf(TEST_PIN_KEY, 'k1').signerFor({ ...account, did: otherDid })).toThrow(UNREADABLE)
    expect(() => keysOf(TEST_PIN_KEY, 'k1').signerFor({ ...account, did: null })).toThrow(UNREADABLE)
  })

  it('moves an account\'s key to a new PIN_ENCRYPTION_KEY at its next login, keeping its DID', async () => {
    const customerId = await store.withApp({}, async (app) => (await createAccount({ app })).customerId)
    const rotation = { PIN_ENCRYPTION_KEY: ROTATED_KEY, PIN_ENCRYPTION_KEY_ID: 'k2' }
    const previous = `k1:${TEST_PIN_KEY}`
    const did = await store.withApp({ ...rotation, PIN_ENCRYPTION_PREVIOUS_KEYS: previous }, async (app) => {
      expect((await login(app, customerId)).screen).toMatch(/^Login successful\./)
      return (await accountView({ app }, customerId)).json().did as string
    })
    const account = await store.withDatabase(async (db) => await findAccount(db, customerId))
    if (account === undefined) throw new Error('the account is not stored')
    expect(account.signingKeyId).toBe('k2')
    expect(keysOf(ROTATED_KEY, 'k2').signerFor(account).did()).toBe(did)
  })

  it('gives an account from before identities its DID at its next login', async () => {
    const legacy = await storeOfTurns()
    try {
      const before = Object.fromEntries(Object.entries(allMigrations).filter(([name]) => name < IDENTITY_MIGRATION))
      const pinRecord = await createPinVault(loadKeyring({ ...legacy.env })).seal('48213')
      await legacy.withDatabase(async (db) => {
        await sql`insert into ussd_accounts (customer_id, phone_number, full_name, pin_record, pin_key_id)
          values ('C0FF1CE00', ${newPhone()}, 'Amina Otieno', ${pinRecord}, 'k1')`.execute(db)
      }, before)
      await legacy.withApp({}, async (app) => {
        const view = async () => (await accountView({ app }, 'C0FF1CE00')).json()
        expect(await view()).toMatchObject({ customerId: 'C0FF1CE00', did: null, roles: ['household'] })
        expect((await login(app, 'C0FF1CE00')).screen).toMatch(/^Login successful\./)
        const { did } = await view()
        expect(did).toMatch(/^did:key:z6Mk/)
        expect((await login(app, 'C0FF1CE00')).screen).toMatch(/^Login successful\./)
        expect((await view()).did).toBe(did)
      })
    } finally {
      await legacy.drop()
    }
  })
})
