import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit'
import { KeyCounts, type Counts } from '../services/counts.ts'
import { Generations } from '../services/generations.ts'

/** One counted request: the key's count in the current window and the milliseconds left in it. */
export interface Hit { current: number, ttl: number }

/**
 * Request counters over fixed windows, for one process. All keys share the window: when it ends,
 * every count starts again at zero (a client can spend its budget at the end of one window and
 * again at the start of the next, as with per-key windows). The LRU cache of @fastify/rate-limit's
 * own local store cost several times a plain table lookup per request, mostly evicting when every
 * request brought a new key (a phone number). Memory is bounded: at most `capacity` keys are
 * counted (generations.ts), and a key counted again after its generation rotated keeps its count.
 * As with any bounded cache, a flood of new keys can reset a dropped key.
 */
export class WindowCounter<K> {
  readonly #counts: Generations<K>
  #endsAt = 0

  /** `table` makes one generation's table of at most `limit` keys (counts.ts). */
  constructor (capacity: number, table: (limit: number) => Counts<K>) {
    this.#counts = new Generations(capacity, table)
  }

  /** Counts a request of `key`; a window of `windowMs` opens when the last one has ended. */
  hit (key: K, windowMs: number, now = Date.now()): Hit {
    if (now >= this.#endsAt) {
      this.#counts.clear()
      this.#endsAt = now + windowMs
    }
    const current = this.#counts.get(key) + 1
    this.#counts.set(key, current)
    return { current, ttl: this.#endsAt - now }
  }

  /** The count without counting (0 outside a window). */
  peek (key: K, now = Date.now()): Hit {
    if (now >= this.#endsAt) return { current: 0, ttl: 0 }
    return { current: this.#counts.get(key), ttl: this.#endsAt - now }
  }
}

type Callback = (error: Error | null, result: Hit) => void

/**
 * A `store` for @fastify/rate-limit over WindowCounter, used when there is no Redis. The plugin
 * passes the window with every increment; `child` gives a route with its own limits its own counts.
 */
export function windowCounterStore (capacity: number): FastifyRateLimitStoreCtor {
  return class WindowCounterStore implements FastifyRateLimitStore {
    readonly #counter = new WindowCounter(capacity, (limit) => new KeyCounts(limit))

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
