import { setTimeout as sleep } from 'node:timers/promises'
import DataLoader from 'dataloader'
import type { FastifyBaseLogger } from 'fastify'
import type { Kysely } from 'kysely'
import {
  addAggregatorOutcome,
  deleteSessionRecordsBefore,
  insertSessionRecords,
  recordKey,
  type SessionRecord
} from '../db/session-records.repository.ts'
import type { DB, EndReason } from '../db/types.ts'
import type { SessionStore, SessionTrace } from './session-store.ts'

/** What the aggregator's end-of-session notification says of a session (Africa's Talking: status and cost). */
export interface AggregatorOutcome {
  status?: string | undefined
  cost?: string | undefined
}

/** A session that ended, as the engine saw it last. */
export interface EndedSummary extends AggregatorOutcome {
  sessionId: string
  serviceCode: string
  networkCode?: string | undefined
  hops: number
  state: string
  startedAt: number
  endedAt: number
  /** A timed-out session's last hop: its duration runs to there, not to its expiry. */
  lastAt?: number
  reason: EndReason
}

export interface SessionRecorderOptions {
  db: Kysely<DB>
  sessions: Pick<SessionStore, 'dueExpired' | 'takeExpired'>
  /** The sessions' inactivity TTL: a timed-out session ended this long after its last hop. */
  ttlMs: number
  retentionDays: number
  log: FastifyBaseLogger
  now?: () => number
  /** How often expired sessions are recorded (and, hourly, old records purged). */
  sweepMs?: number
  /** Hears of each session recorded as ended, once across replicas (metrics). */
  onRecorded?: (summary: EndedSummary) => void
}

const SWEEP_MS = 30_000
const PURGE_EVERY_MS = 60 * 60 * 1000
const DAY_MS = 24 * 60 * 60 * 1000
const BATCH = 200
/** A notice for a session whose END another replica is still recording is tried again once, this much later. */
const NOTICE_RETRY_MS = 2000

const toRecord = (s: EndedSummary): SessionRecord => ({
  sessionId: s.sessionId,
  serviceCode: s.serviceCode,
  networkCode: s.networkCode ?? null,
  hops: s.hops,
  lastState: s.state,
  endReason: s.reason,
  startedAt: new Date(s.startedAt),
  endedAt: new Date(s.endedAt),
  durationMs: Math.max(0, Math.round((s.lastAt ?? s.endedAt) - s.startedAt)),
  aggregatorStatus: s.status ?? null,
  aggregatorCost: s.cost ?? null
})

/**
 * Records ended sessions in PostgreSQL for the drop-off report, off the hop's path: hops hand over a summary
 * and go on. A periodic sweep records sessions that expired (from the session store's expiry schedule, so any
 * replica's sweep may take each one, once) and purges records older than the retention.
 */
export function createSessionRecorder (options: SessionRecorderOptions) {
  const { db, sessions, log } = options
  const now = options.now ?? Date.now
  const pending = new Map<string, Promise<unknown>>()
  let timer: NodeJS.Timeout | undefined
  let sweeping: Promise<void> | undefined
  let lastPurge = 0
  const stop = new AbortController()

  /** Runs `work` in the background, after earlier work for the same session, and logs its failure. */
  function track (sessionId: string, what: string, work: () => Promise<unknown>): void {
    const previous = pending.get(sessionId) ?? Promise.resolve()
    const next = previous.then(work).catch((error: unknown) => {
      log.warn({ err: error, sessionId }, `session record not ${what}`)
    })
    pending.set(sessionId, next)
    next.finally(() => { if (pending.get(sessionId) === next) pending.delete(sessionId) }).catch(() => {})
  }

  // The records of sessions ending in one turn of the event loop go in as one statement: under a burst of
  // sessions, one insert each would queue behind one another and hold up the hops' own reads.
  const inserts = new DataLoader<SessionRecord, boolean>(async (records) => {
    const inserted = await insertSessionRecords(db, records)
    return records.map((record) => inserted.has(recordKey(record.sessionId, record.startedAt)))
  }, { cache: false, maxBatchSize: BATCH })

  /** Inserts the record; a session recorded already (a retried notice) is not heard of twice. */
  async function record (summary: EndedSummary): Promise<void> {
    if (await inserts.load(toRecord(summary))) options.onRecorded?.(summary)
  }

  const fromTrace = (sessionId: string, trace: SessionTrace, outcome: AggregatorOutcome = {}): EndedSummary => ({
    sessionId,
    serviceCode: trace.serviceCode,
    networkCode: trace.networkCode,
    hops: trace.hops,
    state: trace.state,
    startedAt: trace.startedAt,
    // Its last hop is when the user stopped; the record says when it ran out.
    endedAt: Math.min(now(), trace.lastAt + options.ttlMs),
    lastAt: trace.lastAt,
    reason: 'timeout',
    ...outcome
  })

  async function recordExpired (): Promise<void> {
    for (;;) {
      const due = await sessions.dueExpired(BATCH)
      for (const { id } of due) {
        const trace = await sessions.takeExpired(id)
        if (trace !== undefined) await record(fromTrace(id, trace))
      }
      if (due.length < BATCH || stop.signal.aborted) return
    }
  }

  async function purge (): Promise<void> {
    if (now() - lastPurge < PURGE_EVERY_MS) return
    lastPurge = now()
    const deleted = await deleteSessionRecordsBefore(db, new Date(now() - options.retentionDays * DAY_MS))
    if (deleted > 0) log.info({ deleted, retentionDays: options.retentionDays }, 'old session records purged')
  }

  /** Records expired sessions and purges old records; one sweep at a time. */
  async function sweep (): Promise<void> {
    sweeping ??= (async () => {
      try {
        await recordExpired()
        await purge()
      } catch (error) {
        log.warn({ err: error }, 'session records sweep failed')
      } finally {
        sweeping = undefined
      }
    })()
    await sweeping
  }

  return {
    /** Records a session that ended (our END, or the aggregator's notice while it was live). */
    ended (summary: EndedSummary): void {
      track(summary.sessionId, 'recorded', async () => { await record(summary) })
    },

    /** Records a session that had expired when the aggregator's notice came, with the notice's outcome. */
    expired (sessionId: string, trace: SessionTrace, outcome: AggregatorOutcome): void {
      const summary = fromTrace(sessionId, trace, outcome)
      track(sessionId, 'recorded', async () => { await record(summary) })
    },

    /** Adds the aggregator's outcome to the record of a session that ended already. */
    noticed (sessionId: string, outcome: AggregatorOutcome): void {
      if (outcome.status === undefined && outcome.cost === undefined) return
      const values = { status: outcome.status ?? null, cost: outcome.cost ?? null }
      track(sessionId, 'updated', async () => {
        if (await addAggregatorOutcome(db, sessionId, values)) return
        // The END may have been answered by another replica a moment ago, its record still on the way.
        await sleep(NOTICE_RETRY_MS, undefined, { signal: stop.signal }).catch(() => {})
        if (!stop.signal.aborted) await addAggregatorOutcome(db, sessionId, values)
      })
    },

    sweep,

    start (): void {
      if (timer !== undefined) return
      timer = setInterval(() => { sweep().catch(() => {}) }, options.sweepMs ?? SWEEP_MS)
      timer.unref()
    },

    /** Stops the sweep and waits for records being written (call before the database closes). */
    async close (): Promise<void> {
      stop.abort()
      clearInterval(timer)
      await Promise.allSettled([sweeping, ...pending.values()])
    }
  }
}

export type SessionRecorder = ReturnType<typeof createSessionRecorder>
