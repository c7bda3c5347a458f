import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import type { SharedState } from '@impact/shared-state'
import { UssdSessionBusyError } from '../errors.ts'
import { decodeSession, encodeSession, type Session, type StateName } from './session.ts'

/** What a retry of a session's last hop needs after the session ended (it holds no PIN either). */
export interface EndedSession {
  phone: string
  keptText: string
  sequence?: number | undefined
  message: string
  /** Ended by the aggregator's notification, not by an END of ours: a new dial may reuse the id. */
  freed?: true
}

/**
 * What a session's record needs once it expired: kept beside the session (in the key that marks expiry,
 * which outlives it) and read by the sweep that records timeouts. No PIN, text or account data.
 */
export interface SessionTrace {
  phone: string
  serviceCode: string
  networkCode?: string | undefined
  hops: number
  state: StateName
  startedAt: number
  /** When the last hop was answered (the session expires a TTL later). */
  lastAt: number
}

export interface SessionStoreOptions {
  /** Inactivity after which a session expires. */
  ttlMs: number
  /** The clock that decides expiry (tests move it). */
  now?: () => number
  /** TTL of a lock between renewals (tests shorten it). */
  lockTtlMs?: number
  /** Longest wait for a session another hop holds, then UssdSessionBusyError (tests shorten it). */
  lockWaitMs?: number
}

const SESSION = 's:'
const ENDED = 'e:'
/** Outlives the session by EXPIRED_TTL_MS: present while the session is not, it expired. Holds its trace. */
const SEEN = 'x:'
const LOCK = 'l:'
/** Live sessions by expiry time (a schedule): the sweep finds the expired ones without scanning keys. */
const EXPIRIES = 'sx'

/** Outlives a hop that stopped renewing its lock (its replica died mid-hop). */
const LOCK_TTL_MS = 15_000
const LOCK_WAIT_MS = 5_000
const LOCK_POLL_MS = 15
/** How long an ended session's last reply stays available for aggregator retries. */
const ENDED_TTL_MS = 60_000
/** An expired session is remembered this long, so its later hops are told to dial again, not taken as new dials. */
const EXPIRED_TTL_MS = 10 * 60_000

/**
 * Sessions in the shared state (Redis: any replica serves any hop). Every read decodes a copy that the hop
 * stores at its end, so a failed hop stores nothing; hops of one session are serialised by `withLock`.
 */
export function createSessionStore (state: SharedState, options: SessionStoreOptions) {
  const { ttlMs } = options
  const now = options.now ?? Date.now
  const endedTtlMs = Math.min(ttlMs, ENDED_TTL_MS)
  const lockTtlMs = options.lockTtlMs ?? LOCK_TTL_MS
  const lockWaitMs = options.lockWaitMs ?? LOCK_WAIT_MS

  // Each value carries its deadline on the store's clock, which decides; the state's own TTL frees the key.
  async function put (key: string, value: string, ttl: number): Promise<void> {
    await state.set(key, `${now() + ttl}|${value}`, { ttlMs: ttl })
  }

  async function read (key: string): Promise<string | undefined> {
    const stored = await state.get(key)
    if (stored === null) return undefined
    const bar = stored.indexOf('|')
    if (Number(stored.slice(0, bar)) > now()) return stored.slice(bar + 1)
    await state.del(key)
    return undefined
  }

  async function take (key: string, token: string): Promise<boolean> {
    try {
      return await state.set(key, token, { ifAbsent: true, ttlMs: lockTtlMs })
    } catch (error) {
      // A command that timed out may still take the lock later; this release runs after it on the connection.
      state.delIfValue(key, token).catch(() => false)
      throw error
    }
  }

  return {
    /**
     * Runs `fn` under the session's lock, renewed meanwhile: a retry waits for the first attempt and replays its
     * reply instead of applying the input twice.
     */
    async withLock<T> (sessionId: string, fn: () => Promise<T>): Promise<T> {
      const key = LOCK + sessionId
      const token = randomUUID()
      const giveUpAt = Date.now() + lockWaitMs
      while (!(await take(key, token))) {
        if (Date.now() >= giveUpAt) throw new UssdSessionBusyError()
        await sleep(LOCK_POLL_MS)
      }
      const renewal = setInterval(() => {
        state.touchIfValue(key, token, lockTtlMs).catch(() => false)
      }, Math.max(1, Math.floor(lockTtlMs / 3)))
      renewal.unref()
      try {
        return await fn()
      } finally {
        clearInterval(renewal)
        // Only our own token: a hop whose lock expired must not free the next hop's.
        await state.delIfValue(key, token)
      }
    },

    /** A copy of the live session; undefined when expired, ended or never started. */
    async get (sessionId: string): Promise<Session | undefined> {
      const stored = await read(SESSION + sessionId)
      return stored === undefined ? undefined : decodeSession(stored)
    },

    /** Stores the session, restarting its TTL. */
    async save (session: Session): Promise<void> {
      const at = now()
      const trace: SessionTrace = {
        phone: session.phone,
        serviceCode: session.serviceCode,
        networkCode: session.networkCode,
        hops: session.hops ?? 0,
        state: session.state,
        startedAt: session.startedAt,
        lastAt: at
      }
      await Promise.all([
        put(SESSION + session.id, encodeSession(session), ttlMs),
        // A courtesy (a better END text) and a record of a timeout: failing to write them fails no hop.
        put(SEEN + session.id, JSON.stringify(trace), ttlMs + EXPIRED_TTL_MS).catch(() => {}),
        state.schedule(EXPIRIES, session.id, at + ttlMs).catch(() => {})
      ])
    },

    /** Frees the session, keeping only its final reply briefly for retries. */
    async finish (session: Session, ended: EndedSession): Promise<void> {
      await put(ENDED + session.id, JSON.stringify(ended), endedTtlMs)
      await Promise.all([
        state.del(SESSION + session.id),
        state.del(SEEN + session.id),
        state.unschedule(EXPIRIES, session.id).catch(() => false)
      ])
    },

    /** Up to `limit` sessions whose expiry passed (and were not taken yet), earliest first. */
    async dueExpired (limit: number): Promise<Array<{ id: string, at: number }>> {
      return (await state.due(EXPIRIES, now(), limit)).map(({ member, at }) => ({ id: member, at }))
    },

    /**
     * The trace of a session that expired, to record it; of racing callers (replicas' sweeps, the aggregator's
     * notice) only one gets it. Undefined when it is live, was taken or ended, or left no trace.
     */
    async takeExpired (sessionId: string): Promise<SessionTrace | undefined> {
      if (!(await state.unschedule(EXPIRIES, sessionId, { dueBy: now() }))) return undefined
      const stored = await read(SEEN + sessionId)
      try {
        const trace = stored === undefined ? undefined : JSON.parse(stored) as SessionTrace
        return typeof trace === 'object' && trace !== null && typeof trace.state === 'string' ? trace : undefined
      } catch {
        return undefined
      }
    },

    async ended (sessionId: string): Promise<EndedSession | undefined> {
      const stored = await read(ENDED + sessionId)
      if (stored === undefined) return undefined
      try {
        return JSON.parse(stored) as EndedSession
      } catch {
        return undefined
      }
    },

    /** True when the session expired of inactivity lately (asked only when no live session was found). */
    async expired (sessionId: string): Promise<boolean> {
      return (await read(SEEN + sessionId)) !== undefined
    },

    /** Frees a session and forgets that it expired; the record of one that ended stays for its short TTL. */
    async remove (sessionId: string): Promise<void> {
      await Promise.all([
        state.del(SESSION + sessionId),
        state.del(SEEN + sessionId),
        state.unschedule(EXPIRIES, sessionId).catch(() => false)
      ])
    },

    /** Up to `limit` ids of stored sessions (the state is scanned, not indexed). */
    async list (limit: number): Promise<string[]> {
      return (await state.scan(SESSION, limit)).map((key) => key.slice(SESSION.length))
    }
  }
}

export type SessionStore = ReturnType<typeof createSessionStore>
