import { TtlMap } from '@impact/shared-state'
import { UssdSessionBusyError } from '../errors.ts'
import { LiveSessions } from './live-sessions.ts'
import { tracesExpiry, type Session } from './session.ts'
import type { EndedSession, LockToken, SessionStore, StoreTimings } from './session-store.ts'

/**
 * One replica: live sessions stay objects (no encoding per hop). A hop changes the stored object
 * in place (see `restore`): handing out a copy to keep made every hop promote a fresh session object to
 * the old generation, and with a busy replica's live sessions there, the garbage collector was
 * the largest cost of a hop. Operator lookups (`peek`) get a copy. A held lock is a key in
 * `held`; hops that find it held queue in `waiting` and get the lock handed over in turn.
 */
export function localSessions ({ ttlMs, endedTtlMs, expiredTtlMs, lockWaitMs }: StoreTimings): SessionStore {
  /** Ids of sessions that expired lately: a trace costs the hop path nothing (only expiry writes it). */
  const expiredSessions = new TtlMap<true>()
  const live = new LiveSessions(ttlMs, (session) => {
    if (tracesExpiry(session)) expiredSessions.set(session.id, true, expiredTtlMs)
  })
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
      return new Promise<LockToken>((resolve, reject) => {
        const waiter = () => {
          clearTimeout(timer)
          resolve(undefined)
        }
        // A hop stuck behind another for too long gives up (the busy error) and leaves the queue.
        const timer = setTimeout(() => {
          const at = queue.indexOf(waiter)
          if (at >= 0) queue.splice(at, 1)
          if (queue.length === 0 && waiting.get(sessionId) === queue) waiting.delete(sessionId)
          reject(new UssdSessionBusyError())
        }, lockWaitMs)
        queue.push(waiter)
      })
    },
    idle: (sessionId) => !held.has(sessionId),
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
    touch: (sessionId) => live.get(sessionId, true),
    peek: (sessionId) => copy(live.get(sessionId)),
    save (session) { live.set(session) },
    // Only while it is live: a session freed meanwhile (end-of-session notification) stays freed.
    restore (failed) {
      if (typeof failed === 'string') live.delete(failed)
      else if (live.get(failed.id) !== undefined) live.set(failed)
    },
    finish (session, ended) {
      endedSessions.set(session.id, ended, endedTtlMs)
      live.delete(session.id)
      // A hop that outlived the TTL stored its session again over a trace: an END leaves none.
      expiredSessions.delete(session.id)
    },
    ended: (sessionId) => endedSessions.get(sessionId),
    expired: (sessionId) => expiredSessions.has(sessionId),
    remove (sessionId) {
      const wasLive = live.delete(sessionId)
      expiredSessions.delete(sessionId)
      return wasLive
    },
    list: (limit) => live.ids(limit),
    close () {
      live.close()
      endedSessions.close()
      expiredSessions.close()
    }
  }
}
