import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit'

/** One counted request: the key's count in the current window and the milliseconds left in it. */
export interface Hit { current: number, ttl: number }

/**
 * Request counters over fixed windows, for one process. All keys share the window: when it ends,
 * every count starts again at zero (a client can spend its budget at the end of one window and
 * again at the start of the next, as with per-key windows). A hit is a Map read and write; the LRU
 * cache of @fastify/rate-limit's own local store cost several times that per request, mostly
 * evicting when every request brought a new key (a phone number). Memory is bounded: keys are
 * counted in two generations of at most `capacity / 2` keys each; when the recent one is full it
 * becomes the older one and the older is dropped (a key counted again moves to the recent one
 * with its count). As with any bounded cache, a flood of new keys can reset a dropped key.
 */
export class WindowCounter {
  readonly #generation: number
  #recent = new Map<string, number>()
  #older = new Map<string, number>()
  #endsAt = 0

  constructor (capacity: number) {
    this.#generation = Math.max(1, Math.floor(capacity / 2))
  }

  /** Counts a request of `key`; a window of `windowMs` opens when the last one has ended. */
  hit (key: string, windowMs: number, now = Date.now()): Hit {
    if (now >= this.#endsAt) {
      this.#recent = new Map()
      this.#older = new Map()
      this.#endsAt = now + windowMs
    }
    let current = this.#recent.get(key)
    if (current === undefined) {
      current = this.#older.get(key) ?? 0
      if (this.#recent.size >= this.#generation) {
        this.#older = this.#recent
        this.#recent = new Map()
      }
    }
    this.#recent.set(key, ++current)
    return { current, ttl: this.#endsAt - now }
  }

  /** The count without counting (0 outside a window). */
  peek (key: string, now = Date.now()): Hit {
    if (now >= this.#endsAt) return { current: 0, ttl: 0 }
    return { current: this.#recent.get(key) ?? this.#older.get(key) ?? 0, ttl: this.#endsAt - now }
  }
}

type Callback = (error: Error | null, result: Hit) => void

/**
 * A `store` for @fastify/rate-limit over WindowCounter, used when there is no Redis. The plugin
 * passes the window with every increment; `child` gives a route with its own limits its own counts.
 */
export function windowCounterStore (capacity: number): FastifyRateLimitStoreCtor {
  return class WindowCounterStore implements FastifyRateLimitStore {
    readonly #counter = new WindowCounter(capacity)

    incr (key: string, callback: Callback, timeWindow: number): void {
      callback(null, this.#counter.hit(key, timeWindow))
    }

    read (key: string, callback: Callback): void {
      callback(null, this.#counter.peek(key))
    }

    child (): WindowCounterStore {
      return new WindowCounterStore()
    }
  }
}
