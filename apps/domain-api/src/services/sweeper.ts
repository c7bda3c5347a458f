import type { FastifyBaseLogger } from 'fastify'
import type { Kysely } from 'kysely'
import { deleteBatchClaims } from '../db/batch.repository.ts'
import { deleteIdempotencyClaims } from '../db/domain.repository.ts'
import type { DB } from '../db/types.ts'
import { deleteExpiredUcanRevocations } from '../db/ucan-revocation.repository.ts'
import type { Clock } from './clock.ts'
import { settleDue } from './lifecycle.ts'

export interface SweeperOptions {
  db: Kysely<DB>
  clock: Clock
  log: FastifyBaseLogger
  intervalMs: number
  idempotencyTtlMs: number
}

/** For replicas whose clocks run behind. */
const REVOCATION_MARGIN_MS = 5 * 60_000

/**
 * Reads settle lazily, so correctness does not depend on it; it keeps listings and history current.
 * Runs never overlap, and a failed run is retried next time.
 */
export function startSweeper (options: SweeperOptions) {
  let running: Promise<void> | undefined
  const sweep = async () => {
    const now = options.clock()
    const settled = await settleDue(options.db, now)
    const forgetBefore = new Date(now.getTime() - options.idempotencyTtlMs)
    const forgotten = await deleteIdempotencyClaims(options.db, forgetBefore) +
      await deleteBatchClaims(options.db, forgetBefore)
    // UCAN expiry is checked against the system clock, not the registry's: so is the end of a revocation.
    const lapsed = await deleteExpiredUcanRevocations(options.db, new Date(Date.now() - REVOCATION_MARGIN_MS))
    if (settled > 0 || forgotten > 0 || lapsed > 0) {
      options.log.info({ settled, forgotten, revocationsLapsed: lapsed }, 'registry sweep')
    }
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
