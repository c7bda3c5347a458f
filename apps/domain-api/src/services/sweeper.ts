import type { FastifyBaseLogger } from 'fastify'
import type { Kysely } from 'kysely'
import { deleteIdempotencyClaims } from '../db/domain.repository.ts'
import type { DB } from '../db/types.ts'
import type { Clock } from './clock.ts'
import { settleDue } from './lifecycle.ts'

export interface SweeperOptions {
  db: Kysely<DB>
  clock: Clock
  log: FastifyBaseLogger
  intervalMs: number
  idempotencyTtlMs: number
}

/**
 * Records due transitions (ended voting periods, expiries) and forgets old idempotency keys in
 * the background. Correctness does not depend on it (reads settle lazily); it keeps listings
 * and history current. Runs never overlap, and a failed run is logged and retried next time.
 */
export function startSweeper (options: SweeperOptions) {
  let running: Promise<void> | undefined
  const sweep = async () => {
    const now = options.clock()
    const settled = await settleDue(options.db, now)
    const forgotten = await deleteIdempotencyClaims(options.db, new Date(now.getTime() - options.idempotencyTtlMs))
    if (settled > 0 || forgotten > 0) options.log.info({ settled, forgotten }, 'registry sweep')
  }
  const run = () => {
    running ??= sweep()
      .catch((err: unknown) => { options.log.warn({ err }, 'registry sweep failed') })
      .finally(() => { running = undefined })
    return running
  }
  const timer = options.intervalMs > 0 ? setInterval(run, options.intervalMs) : undefined
  timer?.unref()
  return {
    run,
    async stop () {
      clearInterval(timer)
      await running
    }
  }
}
