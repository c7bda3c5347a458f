import type { Kysely } from 'kysely'
import { Migrator, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely/migration'
import { PersistenceError } from './errors.ts'

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
