import { Kysely, PGliteDialect, PostgresDialect, sql, type KyselyConfig } from 'kysely'
import pg from 'pg'
import { MigrationsPendingError, PersistenceError } from './errors.ts'
import {
  migrateToLatest,
  migrationSetKey,
  pendingMigrations,
  type MigrateOptions,
  type MigrationSet
} from './migrations.ts'
import { openDiskEngine, type EmbeddedEngine } from './disk-engine.ts'
import { openMemoryEngine, type MemoryImageRecipe } from './memory-engine.ts'
import { classifyingDialect } from './refusals.ts'

export const MEMORY_DATA_DIR = 'memory://'

export interface DatabaseOptions {
  /** `DATABASE_URL`: a PostgreSQL server. Without it the embedded PGlite engine is used. */
  url?: string | undefined
  /** Where PGlite keeps its files; `memory://` keeps them in memory (tests). */
  dataDir: string
  migrations: MigrationSet
  migrationTable: string
  /** `auto` migrates embedded databases at start-up and leaves servers to the `migrate` job. */
  migrate?: 'auto' | 'always' | 'never'
  /** Maximum pool size on a server. */
  poolMax?: number
  /** Abort queries on a server after this long (ms). */
  statementTimeoutMs?: number
  /** Kysely's `log`: called after every query (metrics time them). */
  log?: KyselyConfig['log']
}

/** The database variables every app's config has (service-kit's base config, plus an optional pool size). */
export interface DatabaseConfig {
  DATABASE_URL?: string | undefined
  DATA_DIR: string
  MIGRATE_ON_START: 'auto' | 'always' | 'never'
  DATABASE_POOL_MAX?: number | undefined
}

/** Options for `openDatabase` read from an app's validated config; the app adds its migrations. */
export const databaseOptions = (config: DatabaseConfig) => ({
  url: config.DATABASE_URL,
  dataDir: config.DATA_DIR,
  migrate: config.MIGRATE_ON_START,
  ...(config.DATABASE_POOL_MAX !== undefined ? { poolMax: config.DATABASE_POOL_MAX } : {})
})

export interface Database<DB> {
  readonly db: Kysely<DB>
  readonly mode: 'postgres' | 'pglite'
  /** Resolves when `SELECT 1` answers within `timeoutMs`; throws otherwise. */
  ping: (timeoutMs?: number) => Promise<void>
  /** Readiness: the database answers and every migration is applied (else MigrationsPendingError). */
  ready: (timeoutMs?: number) => Promise<void>
  migrate: () => Promise<void>
  close: () => Promise<void>
}

function withTimeout<T> (promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new PersistenceError('PERSIST_TIMEOUT', `${what} timed out after ${ms} ms`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

function postgresDialect (options: DatabaseOptions): PostgresDialect {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolMax ?? 10,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    statement_timeout: options.statementTimeoutMs ?? 15_000
  })
  // An unheard `error` (a reset, a failover) ends the process, and pg-pool listens only while a client is idle;
  // the query in flight fails on its own and the pool drops the broken client.
  const ignore = () => {}
  pool.on('error', ignore)
  pool.on('connect', (client) => { client.on('error', ignore) })
  return new PostgresDialect({ pool })
}

/** Migrates a blank cluster by `options`; an image of its result stands for it (see memory-engine.ts). */
const migratedRecipe = (options: MigrateOptions): MemoryImageRecipe => ({
  key: migrationSetKey(options),
  // Not destroyed after: that would close the engine, which goes on to serve the app.
  prepare: async (pglite) => {
    await migrateToLatest(new Kysely({ dialect: new PGliteDialect({ pglite }) }), options)
  }
})

/** The embedded engine, and whether it opened already migrated (a copy of a migrated cluster's image). */
async function openPglite (options: DatabaseOptions, migrateNow: boolean): Promise<EmbeddedEngine> {
  const recipe = migrateNow ? migratedRecipe(options) : undefined
  if (options.dataDir !== MEMORY_DATA_DIR) return await openDiskEngine(options.dataDir, recipe)
  return { engine: await openMemoryEngine(recipe), prepared: migrateNow }
}

/** The app's database: PostgreSQL through `pg` when a URL is configured, else embedded PGlite. */
export async function openDatabase<DB> (options: DatabaseOptions): Promise<Database<DB>> {
  const mode = options.url !== undefined && options.url !== '' ? 'postgres' : 'pglite'
  const policy = options.migrate ?? 'auto'
  const migrateNow = policy === 'always' || (policy === 'auto' && mode === 'pglite')
  const embedded = mode === 'pglite' ? await openPglite(options, migrateNow) : undefined
  const pglite = embedded?.engine
  const db = new Kysely<DB>({
    dialect: classifyingDialect(pglite !== undefined ? new PGliteDialect({ pglite }) : postgresDialect(options)),
    ...(options.log !== undefined ? { log: options.log } : {})
  })
  const migrate = async () => { await migrateToLatest(db, options) }
  const close = async () => {
    await db.destroy()
    // Kysely closes the engine only once it has used it.
    if (pglite !== undefined && !pglite.closed) await pglite.close()
  }
  if (migrateNow && embedded?.prepared !== true) {
    try {
      await migrate()
    } catch (error) {
      await close()
      throw error
    }
  }
  const ping = async (timeoutMs = 2000) => { await withTimeout(sql`select 1`.execute(db), timeoutMs, 'database ping') }
  let migrated = Object.keys(options.migrations).length === 0
  return {
    db,
    mode,
    ping,
    ready: async (timeoutMs = 2000) => {
      if (migrated) return await ping(timeoutMs)
      const pending = await withTimeout(pendingMigrations(db, options), timeoutMs, 'database readiness')
      if (pending.length > 0) throw new MigrationsPendingError(pending)
      migrated = true
    },
    migrate,
    close
  }
}
