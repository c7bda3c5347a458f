/** Errors of the persistence layer, prefixed `PERSIST_`. */
export class PersistenceError extends Error {
  readonly code: string
  constructor (code: `PERSIST_${string}`, message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = 'PersistenceError'
    this.code = code
  }
}

const sqlState = (error: unknown): string | undefined => {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined
  const { code } = error as { code: unknown }
  return typeof code === 'string' ? code : undefined
}

/** PostgreSQL `unique_violation` (23505), raised the same way by pg and PGlite. */
export const isUniqueViolation = (error: unknown): boolean => sqlState(error) === '23505'

/** PostgreSQL `serialization_failure` / `deadlock_detected`: the transaction may simply be retried. */
export const isRetryableTransactionError = (error: unknown): boolean => {
  const state = sqlState(error)
  return state === '40001' || state === '40P01'
}
