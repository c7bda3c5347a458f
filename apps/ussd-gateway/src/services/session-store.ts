import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import type { SharedState } from '@impact/shared-state'
import { UssdSessionBusyError } from '../errors.ts'
import { decodeSession, encodeSession, type Session, type StateName } from './session.ts'

/** Holds no PIN. */
export interface EndedSession {
  phone: string
  keptText: string
  sequence?: number | undefined
  message: string
  /** Ended by the aggregator's notification, so a new dial may reuse the id. */
  freed?: true
}

/** Outlives the session so the sweep can record a timeout; no PIN, text or account data. */
export interface SessionTrace {
  phone: string
  serviceCode: string
  networkCode?: string | undefined
  hops: number
  state: StateName
  startedAt: number
  lastAt: number
}

export interface SessionStoreOptions {
  ttlMs: number
  /** Tests move it. */
  now?: () => number
  lockTtlMs?: number
  lockWaitMs?: number
}

const SESSION = 's:'
const ENDED = 'e:'
/** Present while the session is not: it expired. Holds its trace. */
const SEEN = 'x:'
const LOCK = 'l:'
/** Lets the sweep find expired sessions without scanning keys. */
const EXPIRIES = 'sx'

/** Outlives a hop whose replica died mid-hop. */
const LOCK_TTL_MS = 15_000
const LOCK_WAIT_MS = 5_000
const LOCK_POLL_MS = 15
const ENDED_TTL_MS = 60_000
/** So later hops of an expired session are told to dial again, not taken as new dials. */
const EXPIRED_TTL_MS = 10 * 60_000

/** Every read decodes a copy that the hop stores at its end, so a failed hop stores nothing. */
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
    /** A retry waits for the first attempt and replays its reply instead of applying the input twice. */
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

    async get (sessionId: string): Promise<Session | undefined> {
      const stored = await read(SESSION + sessionId)
      return stored === undefined ? undefined : decodeSession(stored)
    },

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

    async finish (session: Session, ended: EndedSession): Promise<void> {
      await put(ENDED + session.id, JSON.stringify(ended), endedTtlMs)
      await Promise.all([
        state.del(SESSION + session.id),
        state.del(SEEN + session.id),
        state.unschedule(EXPIRIES, session.id).catch(() => false)
      ])
    },

    async dueExpired (limit: number): Promise<Array<{ id: string, at: number }>> {
      return (await state.due(EXPIRIES, now(), limit)).map(({ member, at }) => ({ id: member, at }))
    },

    /** Of racing callers (sweeps, the aggregator's notice) only one gets the trace. */
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

    /** Asked only when no live session was found. */
    async expired (sessionId: string): Promise<boolean> {
      return (await read(SEEN + sessionId)) !== undefined
    },

    async remove (sessionId: string): Promise<void> {
      await Promise.all([
        state.del(SESSION + sessionId),
        state.del(SEEN + sessionId),
        state.unschedule(EXPIRIES, sessionId).catch(() => false)
      ])
    },

    /** The state is scanned, not indexed. */
    async list (limit: number): Promise<string[]> {
      return (await state.scan(SESSION, limit)).map((key) => key.slice(SESSION.length))
    }
  }
}

export type SessionStore = ReturnType<typeof createSessionStore>
