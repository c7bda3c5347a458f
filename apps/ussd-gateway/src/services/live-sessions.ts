import type { Session } from './session.ts'

const SWEEP_INTERVAL_MS = 30_000
/** Expiry is kept in ticks of this many milliseconds since the table was made (see `expiresAt` in session.ts). */
export const TICK_MS = 100

/**
 * The live sessions of one replica by id, with a sliding inactivity TTL: an expired session is
 * dropped when a read finds it and by a periodic sweep, so memory stays bounded by the live ones.
 *
 * Why not the shared TtlMap: it wraps every value in an entry object whose expiry is a boxed
 * double, two more objects per session that no other part of the hop reads. With a busy
 * replica's sessions spread over hundreds of megabytes, each was one more likely cache and TLB
 * miss per hop (a hop costs more the more sessions are live, see the README's benchmark), and
 * memory besides. Here the expiry lives in the session object itself as a small integer (ticks of
 * TICK_MS since the table was made: a small integer is stored in place, a millisecond timestamp
 * would be boxed), so a hop reads the map and the session and nothing else of the store. A session
 * lives its TTL give or take one tick.
 */
export class LiveSessions {
  readonly #sessions = new Map<string, Session>()
  readonly #epoch = Date.now()
  readonly #ttlTicks: number
  readonly #onExpire: (session: Session) => void
  readonly #sweeper: NodeJS.Timeout

  /** `onExpire` hears of each session dropped because its TTL ran out (not of one deleted); it must not throw. */
  constructor (ttlMs: number, onExpire: (session: Session) => void) {
    this.#ttlTicks = Math.max(1, Math.ceil(ttlMs / TICK_MS))
    this.#onExpire = onExpire
    this.#sweeper = setInterval(() => {
      const now = this.#now()
      for (const session of this.#sessions.values()) if (session.expiresAt <= now) this.#expire(session)
    }, SWEEP_INTERVAL_MS)
    this.#sweeper.unref()
  }

  #now (): number {
    return Math.floor((Date.now() - this.#epoch) / TICK_MS)
  }

  #expire (session: Session): void {
    this.#sessions.delete(session.id)
    this.#onExpire(session)
  }

  /** The live session (the stored object itself), or undefined; `touch` restarts its TTL. */
  get (sessionId: string, touch = false): Session | undefined {
    const session = this.#sessions.get(sessionId)
    if (session === undefined) return undefined
    const now = this.#now()
    if (session.expiresAt <= now) {
      this.#expire(session)
      return undefined
    }
    if (touch) session.expiresAt = now + this.#ttlTicks
    return session
  }

  /** Stores the session under its id with a fresh TTL (replacing the one stored, if another object). */
  set (session: Session): void {
    session.expiresAt = this.#now() + this.#ttlTicks
    if (this.#sessions.get(session.id) !== session) this.#sessions.set(session.id, session)
  }

  /** True when a live session was deleted. */
  delete (sessionId: string): boolean {
    return this.get(sessionId) !== undefined && this.#sessions.delete(sessionId)
  }

  /** Up to `limit` ids of live sessions. */
  ids (limit: number): string[] {
    const ids: string[] = []
    for (const sessionId of this.#sessions.keys()) {
      if (ids.length >= limit) break
      if (this.get(sessionId) !== undefined) ids.push(sessionId)
    }
    return ids
  }

  close (): void {
    clearInterval(this.#sweeper)
    this.#sessions.clear()
  }
}
