import { createHash } from 'node:crypto'
import { sql, type Kysely } from 'kysely'
import { Migrator, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely/migration'
import { PersistenceError, sqlState } from './errors.ts'

/** Frozen migrations listed by name: unlike a directory scan, the same from sources and from `dist`. */
export type MigrationSet = Record<string, Migration>

class StaticMigrationProvider implements MigrationProvider {
  private readonly migrations: MigrationSet
  constructor (migrations: MigrationSet) {
    this.migrations = migrations
  }

  async getMigrations (): Promise<MigrationSet> {
    return this.migrations
  }
}

export interface MigrateOptions {
  migrations: MigrationSet
  /** One table per app, so apps sharing a database keep separate histories. */
  migrationTable: string
}

/** Runs every pending migration in one transaction per migration; throws naming the failed one. */
export async function migrateToLatest (db: Kysely<any>, options: MigrateOptions): Promise<MigrationResultSet> {
  const migrator = new Migrator({
    db,
    provider: new StaticMigrationProvider(options.migrations),
    migrationTableName: options.migrationTable,
    migrationLockTableName: `${options.migrationTable}_lock`
  })
  const result = await migrator.migrateToLatest()
  if (result.error !== undefined) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown'
    throw new PersistenceError('PERSIST_MIGRATION_FAILED', `migration ${failed} failed`, { cause: result.error })
  }
  return result
}

/** The app's migrations not yet recorded; one read that, unlike kysely's Migrator, never creates a table. */
export async function pendingMigrations (db: Kysely<any>, options: MigrateOptions): Promise<string[]> {
  const names = Object.keys(options.migrations)
  if (names.length === 0) return []
  try {
    const { rows } = await sql<{
      name: string
    }>`select name from ${sql.table(options.migrationTable)} where name in (${sql.join(names)})`.execute(db)
    const applied = new Set(rows.map((row) => row.name))
    return names.filter((name) => !applied.has(name))
  } catch (error) {
    // 42P01 undefined_table: nothing was ever migrated here.
    if (sqlState(error) === '42P01') return names
    throw error
  }
}

/** A key from the table and each migration's name and code, so no cluster is taken for another set's. */
export function migrationSetKey (options: MigrateOptions): string {
  const hash = createHash('sha256').update(options.migrationTable)
  for (const name of Object.keys(options.migrations).sort()) {
    const { up, down } = options.migrations[name] as Migration
    hash.update(`\0${name}\0${up.toString()}\0${down?.toString() ?? ''}`)
  }
  return `${options.migrationTable.replace(/[^\w-]/g, '_')}-${hash.digest('hex').slice(0, 16)}`
}
