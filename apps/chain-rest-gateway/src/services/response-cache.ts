import { createHash } from 'node:crypto'

/**
 * Answers of the gateway kept per replica, keyed by gRPC method, block height and the encoded
 * request (canonical, so unknown query keys or JSON-vs-proto names do not split entries).
 * An answer pinned to a height never changes and lives until evicted; a latest-height answer
 * lives `latestTtlMs` and is also filed under the height the node reported. Identical queries in
 * flight share one upstream call. Errors are never kept. Requests may also be remembered by
 * their raw URL (an alias of the canonical key), so a repeated URL is answered before any parsing.
 */
export interface CachedAnswer {
  /** UTF-8 JSON, kept as bytes so a hit is written to the socket without re-encoding. */
  body: Buffer
  height: string | undefined
}

/** The part of @impact/shared-state the cache uses: Redis, so replicas share answers. */
export interface SharedAnswers {
  get: (key: string) => Promise<string | null>
  set: (key: string, value: string, options: { ttlMs: number }) => Promise<boolean>
}

export interface ResponseCacheOptions {
  enabled: boolean
  /** Second level shared by replicas (REDIS_URL); height-pinned answers live there `sharedPinnedTtlMs`. */
  shared?: SharedAnswers | undefined
  sharedPinnedTtlMs?: number
  latestTtlMs: number
  maxEntries: number
  maxBytes: number
  /** Hears how each lookup was answered (metrics): kept, shared with a call in flight, or fetched. */
  onLookup?: (result: 'hit' | 'coalesced' | 'miss') => void
}

interface Entry {
  key: string
  answer: CachedAnswer
  expires: number
  size: number
  /** Used since the eviction sweep last passed it (second-chance LRU: hits never reorder the map). */
  used: boolean
  removed: boolean
}

export function createResponseCache (options: ResponseCacheOptions) {
  const entries = new Map<string, Entry>()
  const inflight = new Map<string, Promise<CachedAnswer>>()
  const aliases = new Map<string, Entry>()
  let bytes = 0
  // Bumped by clear(): an answer fetched before a clear (older descriptors) is not kept after it.
  let generation = 0

  const keyOf = (method: string, height: string, request: Uint8Array) =>
    `${method}\n${height}\n${Buffer.from(request.buffer, request.byteOffset, request.byteLength).toString('base64')}`

  function remove (entry: Entry) {
    entries.delete(entry.key)
    entry.removed = true
    bytes -= entry.size
  }

  function store (key: string, answer: CachedAnswer, ttlMs: number): Entry | undefined {
    const size = answer.body.byteLength + key.length
    if (size > options.maxBytes) return undefined
    const previous = entries.get(key)
    if (previous !== undefined) remove(previous)
    const entry: Entry = {
      key,
      answer,
      expires: ttlMs === Infinity ? Infinity : Date.now() + ttlMs,
      size,
      used: false,
      removed: false
    }
    entries.set(key, entry)
    bytes += size
    // Oldest first; an entry used since the last sweep gets a second chance at the back.
    while (entries.size > options.maxEntries || bytes > options.maxBytes) {
      const oldest = entries.values().next().value!
      if (oldest.used && oldest !== entry) {
        oldest.used = false
        entries.delete(oldest.key)
        entries.set(oldest.key, oldest)
      } else {
        remove(oldest)
      }
    }
    return entry.removed ? undefined : entry
  }

  // Answers rendered from other descriptors (a replica before or after a chain upgrade) are not shared.
  let descriptors = ''
  const sharedKey = (key: string) =>
    `cache:${createHash('sha256').update(descriptors).update('\n').update(key).digest('base64url')}`

  /** A replica's answer from the shared store; a store failure is a miss (the node is asked instead). */
  async function fromShared (key: string): Promise<CachedAnswer | undefined> {
    const value = await options.shared?.get(sharedKey(key)).catch(() => null)
    if (value === null || value === undefined) return undefined
    const split = value.indexOf('\n')
    const height = value.slice(0, split)
    return { height: height === '' ? undefined : height, body: Buffer.from(value.slice(split + 1), 'utf8') }
  }

  function toShared (key: string, answer: CachedAnswer, ttlMs: number) {
    if (options.shared === undefined || ttlMs <= 0) return
    const value = `${answer.height ?? ''}\n${answer.body.toString('utf8')}`
    options.shared.set(sharedKey(key), value, { ttlMs }).catch(() => {})
  }

  async function fetchThroughShared (key: string, height: string, fetch: () => Promise<CachedAnswer>) {
    if (options.shared === undefined) return await fetch()
    const hit = await fromShared(key)
    if (hit !== undefined) return hit
    const answer = await fetch()
    toShared(key, answer, height !== '' ? (options.sharedPinnedTtlMs ?? 86_400_000) : options.latestTtlMs)
    return answer
  }

  function live (entry: Entry | undefined): CachedAnswer | undefined {
    if (entry === undefined || entry.removed) return undefined
    if (entry.expires <= Date.now()) {
      remove(entry)
      return undefined
    }
    entry.used = true
    return entry.answer
  }

  function alias (rawKey: string, entry: Entry | undefined) {
    if (entry === undefined) return
    if (aliases.size >= options.maxEntries) aliases.delete(aliases.keys().next().value!)
    aliases.set(rawKey, entry)
  }

  return {
    enabled: options.enabled,

    /** A kept answer for a raw request key seen before, without decoding the request. */
    peek (rawKey: string): CachedAnswer | undefined {
      const entry = aliases.get(rawKey)
      if (entry === undefined) return undefined
      const answer = live(entry)
      if (answer === undefined) aliases.delete(rawKey)
      else options.onLookup?.('hit')
      return answer
    },

    /**
     * The answer for (method, height, request): from the cache, from an identical call in flight,
     * or from `fetch`. `height` is the requested height, '' for latest.
     */
    async get (
      method: string,
      height: string,
      request: Uint8Array,
      fetch: () => Promise<CachedAnswer>,
      rawKey?: string
    ): Promise<CachedAnswer> {
      if (!options.enabled) return await fetch()
      const key = keyOf(method, height, request)
      const entry = entries.get(key)
      const cached = live(entry)
      if (cached !== undefined) {
        if (rawKey !== undefined) alias(rawKey, entry)
        options.onLookup?.('hit')
        return cached
      }
      const pending = inflight.get(key)
      options.onLookup?.(pending !== undefined ? 'coalesced' : 'miss')
      if (pending !== undefined) return await pending
      const started = generation
      const call = fetchThroughShared(key, height, fetch)
        .then((answer) => {
          if (started !== generation) return answer
          let stored: Entry | undefined
          if (height !== '') {
            stored = store(key, answer, Infinity)
          } else {
            if (options.latestTtlMs > 0) stored = store(key, answer, options.latestTtlMs)
            if (answer.height !== undefined && answer.height !== '0') {
              store(keyOf(method, answer.height, request), answer, Infinity)
            }
          }
          if (rawKey !== undefined) alias(rawKey, stored)
          return answer
        })
        .finally(() => { if (inflight.get(key) === call) inflight.delete(key) })
      inflight.set(key, call)
      return await call
    },

    /** Names the descriptors answers are written with: the shared store keeps each set's apart. */
    useDescriptors (fingerprint: string) {
      descriptors = fingerprint
    },

    stats: () => ({ entries: entries.size, bytes, inflight: inflight.size }),
    clear () {
      generation++
      for (const entry of entries.values()) entry.removed = true
      entries.clear()
      aliases.clear()
      inflight.clear()
      bytes = 0
    }
  }
}

export type ResponseCache = ReturnType<typeof createResponseCache>
