import type { Kysely } from 'kysely'
import { findReferences, type ReferenceRow } from '../db/domain.repository.ts'
import type { DB } from '../db/types.ts'

interface Pending { dids: string[], resolve: (rows: Map<string, ReferenceRow>) => void, reject: (e: unknown) => void }

/**
 * Reads the classes and link targets of the creates that arrive in one turn of the event loop with one query,
 * as the insert batcher writes them with one statement: each request still reads them fresh (a protocol
 * deactivated a moment ago is refused), but a busy registry pays one round trip per turn, not per request.
 */
export function createReferenceLoader (db: Kysely<DB>) {
  let queue: Pending[] = []

  async function flush () {
    const batch = queue
    queue = []
    try {
      const rows = await findReferences(db, batch.flatMap((p) => p.dids))
      for (const p of batch) p.resolve(rows)
    } catch (error) {
      for (const p of batch) p.reject(error)
    }
  }

  return {
    async load (dids: string[]): Promise<Map<string, ReferenceRow>> {
      if (dids.length === 0) return new Map()
      return await new Promise((resolve, reject) => {
        if (queue.length === 0) setImmediate(() => { flush().catch(() => {}) })
        queue.push({ dids, resolve, reject })
      })
    }
  }
}
