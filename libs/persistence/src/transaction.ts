import type { Kysely, Transaction } from 'kysely'
import { isRetryableTransactionError } from './errors.ts'

/**
 * Runs `work` in a transaction, and runs it again (up to `attempts` times in all) when PostgreSQL
 * aborted it for a serialization failure or a deadlock: the retry is the remedy PostgreSQL asks
 * for, and `work` must be safe to repeat (it is: the aborted attempt left nothing behind). When
 * the last attempt fails the same way, the error goes up and is answered 503 (retry later).
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
