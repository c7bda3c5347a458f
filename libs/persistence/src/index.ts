export {
  openDatabase,
  databaseOptions,
  MEMORY_DATA_DIR,
  type Database,
  type DatabaseConfig,
  type DatabaseOptions
} from './database.ts'
export { migrateToLatest, pendingMigrations, type MigrationSet, type MigrateOptions } from './migrations.ts'
export {
  PersistenceError,
  MigrationsPendingError,
  isUniqueViolation,
  isForeignKeyViolation,
  isRetryableTransactionError
} from './errors.ts'
export { DatabaseRefusalError, classifyDatabaseError } from './refusals.ts'
export { inTransaction } from './transaction.ts'
export {
  createAuditStore,
  createAuditTable,
  type AuditEntry,
  type AuditPage,
  type AuditQuery,
  type AuditRecord,
  type AuditStore,
  type AuditStoreOptions
} from './audit.ts'
