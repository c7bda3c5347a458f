const SWEEP_INTERVAL_MS = 30_000

/** An in-process map whose entries expire, dropped when read and by a periodic sweep so memory follows live keys. */
export class TtlMap<V> {
  readonly #entries = new Map<string, { value: V, expiresAt: number }>()
  readonly #sweeper: NodeJS.Timeout
  readonly #onExpire: ((key: string, value: V) => void) | undefined

  /** `onExpire` hears of entries dropped because their TTL ran out (not deleted or overwritten); must not throw. */
  constructor (onExpire?: (key: string, value: V) => void) {
    this.#onExpire = onExpire
    this.#sweeper = setInterval(() => {
      const now = Date.now()
      for (const [key, entry] of this.#entries) if (entry.expiresAt <= now) this.#expire(key, entry.value)
    }, SWEEP_INTERVAL_MS)
    this.#sweeper.unref()
  }

  #expire (key: string, value: V) {
    this.#entries.delete(key)
    this.#onExpire?.(key, value)
  }

  #live (key: string) {
    const entry = this.#entries.get(key)
    if (entry === undefined) return undefined
    if (entry.expiresAt <= Date.now()) {
      this.#expire(key, entry.value)
      return undefined
    }
    return entry
  }

  has (key: string): boolean {
    return this.#live(key) !== undefined
  }

  get (key: string): V | undefined {
    return this.#live(key)?.value
  }

  /** Without `ttlMs` (or with 0) the entry never expires. */
  set (key: string, value: V, ttlMs?: number): void {
    // Rewriting a present entry in place spares an allocation per write of a hot key.
    const entry = this.#entries.get(key)
    if (entry === undefined) this.#entries.set(key, { value, expiresAt: expiry(ttlMs) })
    else {
      entry.value = value
      entry.expiresAt = expiry(ttlMs)
    }
  }

  /** The value, its expiry restarted at `ttlMs` from now. */
  touch (key: string, ttlMs: number): V | undefined {
    const entry = this.#live(key)
    if (entry !== undefined) entry.expiresAt = expiry(ttlMs)
    return entry?.value
  }

  /** Milliseconds left, -1 for no expiry, undefined when absent. */
  ttl (key: string): number | undefined {
    const entry = this.#live(key)
    if (entry === undefined) return undefined
    return Number.isFinite(entry.expiresAt) ? Math.max(0, entry.expiresAt - Date.now()) : -1
  }

  delete (key: string): boolean {
    return this.#live(key) !== undefined && this.#entries.delete(key)
  }

  /** Up to `limit` live keys starting with `prefix`. */
  keys (prefix = '', limit = Number.POSITIVE_INFINITY): string[] {
    const keys: string[] = []
    for (const key of this.#entries.keys()) {
      if (keys.length >= limit) break
      if (key.startsWith(prefix) && this.#live(key) !== undefined) keys.push(key)
    }
    return keys
  }

  close (): void {
    clearInterval(this.#sweeper)
    this.#entries.clear()
  }
}

const expiry = (ttlMs?: number) => (ttlMs !== undefined && ttlMs > 0 ? Date.now() + ttlMs : Number.POSITIVE_INFINITY)
