export { openDatabase, databaseOptions, MEMORY_DATA_DIR, type Database, type DatabaseConfig, type DatabaseOptions } from './database.ts'
export { migrateToLatest, pendingMigrations, type MigrationSet, type MigrateOptions } from './migrations.ts'
export { PersistenceError, MigrationsPendingError, isUniqueViolation, isRetryableTransactionError } from './errors.ts'
