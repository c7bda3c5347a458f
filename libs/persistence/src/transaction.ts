import type { Kysely, Transaction } from 'kysely'
import { isRetryableTransactionError } from './errors.ts'

/**
 * Runs `work` in a transaction, again (up to `attempts` in all) after a serialization failure or deadlock, as
 * PostgreSQL asks; the aborted attempt left nothing behind, so `work` is safe to repeat.
 */
export async function inTransaction<DB, T> (
  db: Kysely<DB>,
  work: (trx: Transaction<DB>) => Promise<T>,
  attempts = 3
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work)
    } catch (error) {
      if (attempt >= attempts || !isRetryableTransactionError(error)) throw error
    }
  }
}
