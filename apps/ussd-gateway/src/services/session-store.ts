import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import type { SharedState } from '@impact/shared-state'
import { UssdSessionBusyError } from '../errors.ts'
import { decodeSession, encodeSession, type Session } from './session.ts'

/** What a retry of a session's last hop needs after the session ended (it holds no PIN either). */
export interface EndedSession { phone: string, textLength: number, textDigest: string, sequence?: number | undefined, message: string }

const SESSION = 's:'
const ENDED = 'e:'
const LOCK = 'l:'
const LOCK_TTL_MS = 15_000
const LOCK_WAIT_MS = 5_000
const LOCK_POLL_MS = 15
/** How long an ended session's last reply stays available for aggregator retries. */
const ENDED_TTL_MS = 60_000

/**
 * Sessions in the shared state (Redis across replicas, or in-process) with a sliding inactivity
 * TTL. Hops of one session are serialised by a short lock, so a retry arriving while the first
 * attempt still runs waits for it and then replays its reply instead of applying the input twice.
 */
export function createSessionStore (state: SharedState, ttlMs: number) {
  const endedTtlMs = Math.min(ttlMs, ENDED_TTL_MS)
  const local = new Map<string, Promise<void>>()

  // In-process state has one replica: hops of a session queue on a promise instead of a stored key.
  async function localLock (sessionId: string): Promise<() => Promise<void>> {
    const previous = local.get(sessionId)
    let release!: () => void
    const current = new Promise<void>((resolve) => { release = resolve })
    local.set(sessionId, current)
    if (previous !== undefined) await previous
    return async () => {
      if (local.get(sessionId) === current) local.delete(sessionId)
      release()
    }
  }

  async function sharedLock (sessionId: string): Promise<() => Promise<void>> {
    const key = LOCK + sessionId
    const deadline = Date.now() + LOCK_WAIT_MS
    while (!(await state.set(key, randomUUID(), { ifAbsent: true, ttlMs: LOCK_TTL_MS }))) {
      if (Date.now() > deadline) throw new UssdSessionBusyError()
      await sleep(LOCK_POLL_MS)
    }
    return async () => { await state.del(key) }
  }

  return {
    lock: state.kind === 'memory' ? localLock : sharedLock,

    /** The live session, its TTL restarted; undefined when expired, ended or never started. */
    async touch (sessionId: string): Promise<Session | undefined> {
      const stored = await state.getAndTouch(SESSION + sessionId, ttlMs)
      return stored === null ? undefined : decodeSession(stored)
    },

    /** Reads without touching the TTL (operator lookups must not keep sessions alive). */
    async peek (sessionId: string): Promise<Session | undefined> {
      const stored = await state.get(SESSION + sessionId)
      return stored === null ? undefined : decodeSession(stored)
    },

    async save (session: Session): Promise<void> {
      await state.set(SESSION + session.id, encodeSession(session), { ttlMs })
    },

    /** Frees the session, keeping only its final reply briefly for retries. */
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

    /** Frees everything about a session (the aggregator's end-of-session notification). */
    async remove (sessionId: string): Promise<boolean> {
      const [live] = await Promise.all([state.del(SESSION + sessionId), state.del(ENDED + sessionId)])
      return live
    },

    async list (limit: number): Promise<string[]> {
      return (await state.scan(SESSION, limit)).map((key) => key.slice(SESSION.length))
    }
  }
}

export type SessionStore = ReturnType<typeof createSessionStore>
