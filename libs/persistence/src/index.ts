export { openDatabase, MEMORY_DATA_DIR, type Database, type DatabaseOptions } from './database.ts'
export { migrateToLatest, type MigrationSet, type MigrateOptions } from './migrations.ts'
export { PersistenceError, isUniqueViolation, isRetryableTransactionError } from './errors.ts'
