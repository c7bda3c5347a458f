import { createHash } from 'node:crypto'
import { sql, type Kysely } from 'kysely'
import { Migrator, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely/migration'
import { PersistenceError, sqlState } from './errors.ts'

/**
 * Migrations are frozen modules listed by name in each app's `migrations/index.ts`
 * (`YYYY_MM_DD_HHMMSS_verb_object`). An explicit list works the same from TypeScript sources
 * under vitest and from the built `dist`, where a directory scan would see different files.
 */
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

/**
 * Names of the app's migrations not recorded in its migration table (all of them when the table
 * does not exist yet). One indexed read; it never creates anything, unlike kysely's Migrator.
 */
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

/**
 * Names a migration set by its table and the names and code of its migrations, so that a cluster
 * migrated by one set is never taken for one migrated by another.
 */
export function migrationSetKey (options: MigrateOptions): string {
  const hash = createHash('sha256').update(options.migrationTable)
  for (const name of Object.keys(options.migrations).sort()) {
    const { up, down } = options.migrations[name] as Migration
    hash.update(`\0${name}\0${up.toString()}\0${down?.toString() ?? ''}`)
  }
  return `${options.migrationTable.replace(/[^\w-]/g, '_')}-${hash.digest('hex').slice(0, 16)}`
}
