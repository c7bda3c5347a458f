/** Errors of the persistence layer, prefixed `PERSIST_`. */
export class PersistenceError extends Error {
  readonly code: string
  constructor (code: `PERSIST_${string}`, message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = 'PersistenceError'
    this.code = code
  }
}

/** The database answers but the app's migrations are not applied; `/health` reports `healthState`. */
export class MigrationsPendingError extends PersistenceError {
  readonly healthState = 'migrations pending'
  readonly pending: readonly string[]
  constructor (pending: readonly string[]) {
    super('PERSIST_MIGRATIONS_PENDING', `migrations not applied: ${pending.join(', ')}`)
    this.name = 'MigrationsPendingError'
    this.pending = pending
  }
}

/** The SQLSTATE of a driver error, or of one the persistence layer classified (`sqlState`). */
export const sqlState = (error: unknown): string | undefined => {
  if (typeof error !== 'object' || error === null) return undefined
  const { sqlState: state, code } = error as { sqlState?: unknown, code?: unknown }
  if (typeof state === 'string') return state
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined
}

/** PostgreSQL `unique_violation` (23505), raised the same way by pg and PGlite. */
export const isUniqueViolation = (error: unknown): boolean => sqlState(error) === '23505'

/** PostgreSQL `foreign_key_violation` (23503): the row a write refers to is gone. */
export const isForeignKeyViolation = (error: unknown): boolean => sqlState(error) === '23503'

/** PostgreSQL `serialization_failure` / `deadlock_detected`: the transaction may simply be retried. */
export const isRetryableTransactionError = (error: unknown): boolean => {
  const state = sqlState(error)
  return state === '40001' || state === '40P01'
}
