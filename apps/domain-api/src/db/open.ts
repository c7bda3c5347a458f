import { databaseOptions, openDatabase, type Database, type DatabaseOptions } from '@impact/persistence'
import type { Config } from '../config.ts'
import { migrations } from './migrations/index.ts'
import type { DB } from './types.ts'

export const MIGRATION_TABLE = 'domain_api_migrations'

export const openAppDatabase = async (
  config: Config,
  options: Pick<DatabaseOptions, 'log'> = {}
): Promise<Database<DB>> => await openDatabase<DB>({
  ...databaseOptions(config),
  ...options,
  migrations,
  migrationTable: MIGRATION_TABLE
})
