import type { SharedState } from '@impact/shared-state'
import { localSessions } from './local-sessions.ts'
import type { Maybe } from './maybe.ts'
import type { Session } from './session.ts'
import { sharedSessions } from './shared-sessions.ts'

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
 * How long a shared lock outlives a hop that stopped renewing it (its replica died mid-hop). A
 * running hop renews its lock, so a slow database cannot hand the session to a retry meanwhile.
 */
const LOCK_TTL_MS = 15_000
/** How long a hop waits for the hop before it (then the aggregator gets the unavailable END). */
const LOCK_WAIT_MS = 5_000
/** How long an ended session's last reply stays available for aggregator retries. */
const ENDED_TTL_MS = 60_000
/**
 * How long a session that expired is remembered as expired: a later hop of it is told to dial
 * again instead of being taken for a new dial. An aggregator's session outlives ours only when
 * our inactivity TTL is the shorter one (Africa's Talking caps a session at 180 s).
 */
const EXPIRED_TTL_MS = 10 * 60_000

/** Proves which hop holds a shared lock, so a hop whose lock expired cannot release another's. */
export type LockToken = string | undefined

/** What the engine needs of a session store; `createSessionStore` picks the implementation. */
export interface SessionStore {
  /**
   * Serialises the hops of one session: settles once this hop holds the session's lock, with the
   * token that releases it (none in-process, where only this process can hold it).
   */
  lock: (sessionId: string) => Maybe<LockToken>
  /**
   * In-process only: true when no hop holds the session. A hop that then runs to its end without
   * yielding needs no lock, since no other hop can run meanwhile; one that goes on to wait on I/O
   * takes the lock before anything else runs, and gets it at once. Taking and releasing the lock
   * on every hop cost more than any other step of a menu hop (a Set's table churned per hop).
   */
  idle?: (sessionId: string) => boolean
  /** Releases the lock that `lock` gave, handing it to the next waiting hop if there is one. */
  unlock: (sessionId: string, token: LockToken) => Maybe<void>
  /**
   * Set when `touch` lends out the stored session itself (in-process): a hop then changes it in
   * place, and one that fails hands the snapshot it took before to `restore`, or, when it took none
   * (see the engine's continueSession), its session id, and the session is freed. Without it, `touch`
   * answers a decoded copy and a hop that fails has nothing to undo.
   */
  restore?: (failed: Session | string) => void
  /** The live session, its TTL restarted; undefined when expired, ended or never started. */
  touch: (sessionId: string) => Maybe<Session | undefined>
  /** Reads without touching the TTL (operator lookups must not keep sessions alive). */
  peek: (sessionId: string) => Maybe<Session | undefined>
  /** Stores the session; the store may keep this very object, so the caller must not change it afterwards. */
  save: (session: Session) => Maybe<void>
  /** Frees the session, keeping only its final reply briefly for retries. */
  finish: (session: Session, ended: EndedSession) => Maybe<void>
  ended: (sessionId: string) => Maybe<EndedSession | undefined>
  /** True when the session expired of inactivity lately (not when it ended or was freed). */
  expired: (sessionId: string) => Maybe<boolean>
  /**
   * Frees a session (the aggregator's end-of-session notification) and forgets that it expired;
   * the record of one that ended stays for its short TTL.
   */
  remove: (sessionId: string) => Maybe<boolean>
  list: (limit: number) => Maybe<string[]>
  /** Frees what the store holds in this process (the shared state is closed by its owner). */
  close: () => void
}

export interface SessionStoreOptions {
  /** Sliding inactivity TTL of a live session. */
  ttlMs: number
  /** TTL of a shared lock between renewals (tests shorten it). */
  lockTtlMs?: number
  /** Longest wait for a held session before UssdSessionBusyError (tests shorten it). */
  lockWaitMs?: number
}

/** The timings every store works with. */
export interface StoreTimings { ttlMs: number, endedTtlMs: number, expiredTtlMs: number, lockTtlMs: number, lockWaitMs: number }

/**
 * Sessions with a sliding inactivity TTL. Hops of one session are serialised by a short lock, so
 * a retry arriving while the first attempt still runs waits for it and then replays its reply
 * instead of applying the input twice. With Redis they live there (any replica serves any hop);
 * in-process state has one replica, so they stay objects in this process.
 */
export function createSessionStore (state: SharedState, options: SessionStoreOptions): SessionStore {
  const timings = {
    ttlMs: options.ttlMs,
    endedTtlMs: Math.min(options.ttlMs, ENDED_TTL_MS),
    expiredTtlMs: EXPIRED_TTL_MS,
    lockTtlMs: options.lockTtlMs ?? LOCK_TTL_MS,
    lockWaitMs: options.lockWaitMs ?? LOCK_WAIT_MS
  }
  return state.kind === 'memory' ? localSessions(timings) : sharedSessions(state, timings)
}
