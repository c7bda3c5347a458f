import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import type { SharedState } from '@impact/shared-state'
import { UssdSessionBusyError } from '../errors.ts'
import { decodeSession, encodeSession, tracesExpiry, type Session } from './session.ts'
import type { EndedSession, LockToken, SessionStore, StoreTimings } from './session-store.ts'

const SESSION = 's:'
const ENDED = 'e:'
/** Outlives the session key by expiredTtlMs: present while the session is not, it expired. */
const SEEN = 'x:'
const LOCK = 'l:'
const LOCK_POLL_MS = 15

/** Sessions encoded in the shared state (Redis), locked by a stored key with a TTL. */
export function sharedSessions (state: SharedState, { ttlMs, endedTtlMs, expiredTtlMs, lockTtlMs, lockWaitMs }: StoreTimings): SessionStore {
  /** Renewal timers of the locks this replica holds, by token. */
  const renewals = new Map<string, NodeJS.Timeout>()
  const stopRenewing = (token: string) => {
    clearInterval(renewals.get(token))
    renewals.delete(token)
  }
  return {
    async lock (sessionId: string): Promise<string> {
      const key = LOCK + sessionId
      const token = randomUUID()
      const deadline = Date.now() + lockWaitMs
      const take = async () => {
        try {
          return await state.set(key, token, { ifAbsent: true, ttlMs: lockTtlMs })
        } catch (error) {
          // A command that failed (timed out) may still reach Redis later and take the lock for a
          // token nobody holds. Commands run in order on the connection: this release runs after it.
          state.delIfValue(key, token).catch(() => false)
          throw error
        }
      }
      while (!(await take())) {
        if (Date.now() > deadline) throw new UssdSessionBusyError()
        await sleep(LOCK_POLL_MS)
      }
      // Renewed while the hop runs (a slow database must not let a retry in); a renewal that finds
      // the lock gone (Redis lost it) stops, and the hop's release will then free nothing.
      const renewal = setInterval(() => {
        state.touchIfValue(key, token, lockTtlMs).then((held) => { if (!held) stopRenewing(token) }, () => {})
      }, Math.max(1, Math.floor(lockTtlMs / 3)))
      renewal.unref()
      renewals.set(token, renewal)
      return token
    },

    // A hop whose lock was lost (its renewals failed past the TTL) may find the next hop's lock: that one stays.
    async unlock (sessionId: string, token: LockToken): Promise<void> {
      if (token === undefined) return
      stopRenewing(token)
      await state.delIfValue(LOCK + sessionId, token)
    },

    async touch (sessionId: string): Promise<Session | undefined> {
      const stored = await state.getAndTouch(SESSION + sessionId, ttlMs)
      return stored === null ? undefined : decodeSession(stored)
    },

    async peek (sessionId: string): Promise<Session | undefined> {
      const stored = await state.get(SESSION + sessionId)
      return stored === null ? undefined : decodeSession(stored)
    },

    // Both in flight at once (one round trip). The trace slides with the session; it is only a
    // courtesy (a better END text), so failing to write it fails no hop.
    async save (session: Session): Promise<void> {
      await Promise.all([
        state.set(SESSION + session.id, encodeSession(session), { ttlMs }),
        tracesExpiry(session) ? state.set(SEEN + session.id, '1', { ttlMs: ttlMs + expiredTtlMs }).catch(() => false) : undefined
      ])
    },

    async finish (session: Session, ended: EndedSession): Promise<void> {
      await state.set(ENDED + session.id, JSON.stringify(ended), { ttlMs: endedTtlMs })
      await Promise.all([state.del(SESSION + session.id), state.del(SEEN + session.id)])
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

    // Asked only when no live session was found: the trace then means it expired.
    async expired (sessionId: string): Promise<boolean> {
      return (await state.get(SEEN + sessionId)) !== null
    },

    async remove (sessionId: string): Promise<boolean> {
      const [live] = await Promise.all([state.del(SESSION + sessionId), state.del(SEEN + sessionId)])
      return live
    },

    async list (limit: number): Promise<string[]> {
      return (await state.scan(SESSION, limit)).map((key) => key.slice(SESSION.length))
    },

    close () {
      for (const token of [...renewals.keys()]) stopRenewing(token)
    }
  }
}
