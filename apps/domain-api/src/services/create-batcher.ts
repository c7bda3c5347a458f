import type { Kysely } from 'kysely'
import { activeTraceparent } from '@impact/service-kit'
import { insertDomains, type DomainInsert } from '../db/domain-insert.repository.ts'
import type { DB } from '../db/types.ts'

interface Pending { row: DomainInsert, resolve: (inserted: boolean) => void, reject: (error: unknown) => void }

const MAX_BATCH = 64

/**
 * Coalesces the creates that arrive in one turn of the event loop into one INSERT statement
 * (one round trip, one commit), as databases do with group commit. Under load this multiplies
 * create throughput; a lone request waits for nothing but the current turn. A failing batch is
 * retried row by row, so one bad row fails only its own request.
 */
export function createInsertBatcher (db: Kysely<DB>, retentionMs: number) {
  let queue: Pending[] = []
  let scheduled = false

  const claimOf = (p: Pending) =>
    p.row.claim !== undefined ? `${p.row.claim.apiKeyId}\u0000${p.row.claim.key}` : undefined

  async function run (batch: Pending[]) {
    try {
      const inserted = await insertDomains(db, batch.map((p) => p.row), retentionMs)
      for (const p of batch) p.resolve(inserted.has(p.row.domain.did))
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error)
        return
      }
      await Promise.all(batch.map(async (p) => { await run([p]) }))
    }
  }

  function flush () {
    scheduled = false
    const batch: Pending[] = []
    const rest: Pending[] = []
    const claims = new Set<string>()
    for (const p of queue) {
      const claim = claimOf(p)
      // One statement may not claim a key twice: a repeat waits for the next batch (and replays).
      if (batch.length >= MAX_BATCH || (claim !== undefined && claims.has(claim))) {
        rest.push(p)
        continue
      }
      if (claim !== undefined) claims.add(claim)
      batch.push(p)
    }
    queue = rest
    if (queue.length > 0) schedule()
    run(batch).catch((error: unknown) => { for (const p of batch) p.reject(error) })
  }

  function schedule () {
    if (scheduled) return
    scheduled = true
    setImmediate(flush)
  }

  return {
    /** Resolves whether the row was inserted (false: its idempotency key is held by another request). */
    insert (row: DomainInsert): Promise<boolean> {
      return new Promise((resolve, reject) => {
        // The flush runs outside the request: the row keeps the request's trace for its `created` event.
        queue.push({ row: { ...row, traceparent: row.traceparent ?? activeTraceparent() ?? null }, resolve, reject })
        schedule()
      })
    }
  }
}
