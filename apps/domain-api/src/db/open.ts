import { openDatabase, type Database } from '@impact/persistence'
import type { Config } from '../config.ts'
import { migrations } from './migrations/index.ts'
import type { DB } from './types.ts'

export const MIGRATION_TABLE = 'domain_api_migrations'

export const openAppDatabase = async (config: Config): Promise<Database<DB>> => await openDatabase<DB>({
  url: config.DATABASE_URL,
  dataDir: config.DATA_DIR,
  migrate: config.MIGRATE_ON_START,
  migrations,
  migrationTable: MIGRATION_TABLE,
  poolMax: config.DATABASE_POOL_MAX
})
