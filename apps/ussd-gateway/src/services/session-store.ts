import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { TtlMap, type SharedState } from '@impact/shared-state'
import { UssdSessionBusyError } from '../errors.ts'
import type { Maybe } from './maybe.ts'
import { decodeSession, encodeSession, type Session } from './session.ts'

/** What a retry of a session's last hop needs after the session ended (it holds no PIN either). */
export interface EndedSession { phone: string, keptText: string, sequence?: number | undefined, message: string }

const SESSION = 's:'
const ENDED = 'e:'
const LOCK = 'l:'
/** How long a shared lock outlives a hop that never released it (its replica died mid-hop). */
const LOCK_TTL_MS = 15_000
const LOCK_WAIT_MS = 5_000
const LOCK_POLL_MS = 15
/** How long an ended session's last reply stays available for aggregator retries. */
const ENDED_TTL_MS = 60_000

/** Proves which hop holds a shared lock, so a hop whose lock expired cannot release another's. */
export type LockToken = string | undefined

/** What the engine needs of a session store; `createSessionStore` picks the implementation. */
export interface SessionStore {
  /**
   * Serialises the hops of one session: settles once this hop holds the session's lock, with the
   * token that releases it (none in-process, where only this process can hold it).
   */
  lock: (sessionId: string) => Maybe<LockToken>
  /** Releases the lock that `lock` gave, handing it to the next waiting hop if there is one. */
  unlock: (sessionId: string, token: LockToken) => Maybe<void>
  /**
   * Set when `touch` lends out the stored session itself (in-process): a hop then changes it in
   * place, and one that fails hands the snapshot it took before to `restore`. Without it, `touch`
   * answers a decoded copy and a hop that fails has nothing to undo.
   */
  restore?: (snapshot: Session) => void
  /** The live session, its TTL restarted; undefined when expired, ended or never started. */
  touch: (sessionId: string) => Maybe<Session | undefined>
  /** Reads without touching the TTL (operator lookups must not keep sessions alive). */
  peek: (sessionId: string) => Maybe<Session | undefined>
  /** Stores the session; the store may keep this very object, so the caller must not change it afterwards. */
  save: (session: Session) => Maybe<void>
  /** Frees the session, keeping only its final reply briefly for retries. */
  finish: (session: Session, ended: EndedSession) => Maybe<void>
  ended: (sessionId: string) => Maybe<EndedSession | undefined>
  /** Frees everything about a session (the aggregator's end-of-session notification). */
  remove: (sessionId: string) => Maybe<boolean>
  list: (limit: number) => Maybe<string[]>
  /** Frees what the store holds in this process (the shared state is closed by its owner). */
  close: () => void
}

/**
 * Sessions with a sliding inactivity TTL. Hops of one session are serialised by a short lock, so
 * a retry arriving while the first attempt still runs waits for it and then replays its reply
 * instead of applying the input twice. With Redis they live there (any replica serves any hop);
 * in-process state has one replica, so they stay objects in this process.
 */
export function createSessionStore (state: SharedState, ttlMs: number, lockTtlMs = LOCK_TTL_MS): SessionStore {
  const endedTtlMs = Math.min(ttlMs, ENDED_TTL_MS)
  return state.kind === 'memory' ? localSessions(ttlMs, endedTtlMs) : sharedSessions(state, ttlMs, endedTtlMs, lockTtlMs)
}

/**
 * One replica: live sessions stay objects (no encoding per hop). A hop changes the stored object
 * in place (see `restore`): handing out a copy to keep made every hop promote a fresh session object to
 * the old generation, and with a busy replica's live sessions there, the garbage collector was
 * the largest cost of a hop. Operator lookups (`peek`) get a copy. A held lock is a key in
 * `held`; hops that find it held queue in `waiting` and get the lock handed over in turn.
 */
function localSessions (ttlMs: number, endedTtlMs: number): SessionStore {
  const live = new TtlMap<Session>()
  const endedSessions = new TtlMap<EndedSession>()
  /** Sessions with a hop running. */
  const held = new Set<string>()
  /** Hops waiting for a held session (rare: a retry arriving while the first attempt runs). */
  const waiting = new Map<string, Array<() => void>>()
  const copy = (session: Session | undefined) => (session === undefined ? undefined : { ...session })
  return {
    lock (sessionId) {
      if (!held.has(sessionId)) {
        held.add(sessionId)
        return
      }
      const queue = waiting.get(sessionId) ?? []
      waiting.set(sessionId, queue)
      return new Promise<LockToken>((resolve) => { queue.push(() => { resolve(undefined) }) })
    },
    unlock (sessionId) {
      const queue = waiting.size === 0 ? undefined : waiting.get(sessionId)
      const next = queue?.shift()
      if (queue === undefined || next === undefined) {
        held.delete(sessionId)
        return
      }
      // The lock passes to the next hop: the session stays held.
      if (queue.length === 0) waiting.delete(sessionId)
      next()
    },
    touch: (sessionId) => live.touch(sessionId, ttlMs),
    peek: (sessionId) => copy(live.get(sessionId)),
    save (session) { live.set(session.id, session, ttlMs) },
    // Only while it is live: a session freed meanwhile (end-of-session notification) stays freed.
    restore (snapshot) { if (live.has(snapshot.id)) live.set(snapshot.id, snapshot, ttlMs) },
    finish (session, ended) {
      endedSessions.set(session.id, ended, endedTtlMs)
      live.delete(session.id)
    },
    ended: (sessionId) => endedSessions.get(sessionId),
    remove (sessionId) {
      endedSessions.delete(sessionId)
      return live.delete(sessionId)
    },
    list: (limit) => live.keys('', limit),
    close () {
      live.close()
      endedSessions.close()
    }
  }
}

/** Sessions encoded in the shared state (Redis), locked by a stored key with a TTL. */
function sharedSessions (state: SharedState, ttlMs: number, endedTtlMs: number, lockTtlMs: number): SessionStore {
  return {
    async lock (sessionId: string): Promise<string> {
      const key = LOCK + sessionId
      const token = randomUUID()
      const deadline = Date.now() + LOCK_WAIT_MS
      while (!(await state.set(key, token, { ifAbsent: true, ttlMs: lockTtlMs }))) {
        if (Date.now() > deadline) throw new UssdSessionBusyError()
        await sleep(LOCK_POLL_MS)
      }
      return token
    },

    // A hop that outlived the lock's TTL lost it, maybe to the next hop: that one keeps it.
    async unlock (sessionId: string, token: LockToken): Promise<void> {
      if (token !== undefined) await state.delIfValue(LOCK + sessionId, token)
    },

    async touch (sessionId: string): Promise<Session | undefined> {
      const stored = await state.getAndTouch(SESSION + sessionId, ttlMs)
      return stored === null ? undefined : decodeSession(stored)
    },

    async peek (sessionId: string): Promise<Session | undefined> {
      const stored = await state.get(SESSION + sessionId)
      return stored === null ? undefined : decodeSession(stored)
    },

    async save (session: Session): Promise<void> {
      await state.set(SESSION + session.id, encodeSession(session), { ttlMs })
    },

    async finish (session: Session, ended: EndedSession): Promise<void> {
      await state.set(ENDED + session.id, JSON.stringify(ended), { ttlMs: endedTtlMs })
      await state.del(SESSION + session.id)
    },

    async ended (sessionId: string): Promise<EndedSession | undefined> {
      const stored = await state.get(ENDED + sessionId)
      if (stored === null) return undefined
      try {
        return JSON.parse(stored) as EndedSession
      } catch {
        return undefined
      }
    },

    async remove (sessionId: string): Promise<boolean> {
      const [live] = await Promise.all([state.del(SESSION + sessionId), state.del(ENDED + sessionId)])
      return live
    },

    async list (limit: number): Promise<string[]> {
      return (await state.scan(SESSION, limit)).map((key) => key.slice(SESSION.length))
    },

    close () {}
  }
}
