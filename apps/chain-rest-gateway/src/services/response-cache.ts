/**
 * Answers of the gateway kept per replica, keyed by gRPC method, block height and the encoded
 * request (canonical, so unknown query keys or JSON-vs-proto names do not split entries).
 * An answer pinned to a height never changes and lives until evicted; a latest-height answer
 * lives `latestTtlMs` and is also filed under the height the node reported. Identical queries in
 * flight share one upstream call. Errors are never kept.
 */
export interface CachedAnswer {
  body: string
  height: string | undefined
}

export interface ResponseCacheOptions {
  enabled: boolean
  latestTtlMs: number
  maxEntries: number
  maxBytes: number
}

interface Entry {
  answer: CachedAnswer
  expires: number
  size: number
}

export type CacheOutcome = 'hit' | 'coalesced' | 'miss' | 'bypass'

export function createResponseCache (options: ResponseCacheOptions) {
  const entries = new Map<string, Entry>()
  const inflight = new Map<string, Promise<CachedAnswer>>()
  let bytes = 0

  const keyOf = (method: string, height: string, request: Uint8Array) =>
    `${method}\n${height}\n${Buffer.from(request.buffer, request.byteOffset, request.byteLength).toString('base64')}`

  function remove (key: string, entry: Entry) {
    entries.delete(key)
    bytes -= entry.size
  }

  function store (key: string, answer: CachedAnswer, ttlMs: number) {
    const size = answer.body.length + key.length
    if (size > options.maxBytes) return
    const previous = entries.get(key)
    if (previous !== undefined) remove(key, previous)
    entries.set(key, { answer, expires: ttlMs === Infinity ? Infinity : Date.now() + ttlMs, size })
    bytes += size
    // Map order is insertion order, refreshed on every hit: the first keys are the least recently used.
    for (const [oldKey, oldEntry] of entries) {
      if (entries.size <= options.maxEntries && bytes <= options.maxBytes) break
      remove(oldKey, oldEntry)
    }
  }

  function lookup (key: string): CachedAnswer | undefined {
    const entry = entries.get(key)
    if (entry === undefined) return undefined
    if (entry.expires <= Date.now()) {
      remove(key, entry)
      return undefined
    }
    entries.delete(key)
    entries.set(key, entry)
    return entry.answer
  }

  return {
    enabled: options.enabled,

    /**
     * The answer for (method, height, request): from the cache, from an identical call in flight,
     * or from `fetch`. `height` is the requested height, '' for latest.
     */
    async get (method: string, height: string, request: Uint8Array, fetch: () => Promise<CachedAnswer>, onOutcome?: (outcome: CacheOutcome) => void): Promise<CachedAnswer> {
      if (!options.enabled) {
        onOutcome?.('bypass')
        return await fetch()
      }
      const key = keyOf(method, height, request)
      const cached = lookup(key)
      if (cached !== undefined) {
        onOutcome?.('hit')
        return cached
      }
      const pending = inflight.get(key)
      if (pending !== undefined) {
        onOutcome?.('coalesced')
        return await pending
      }
      onOutcome?.('miss')
      const call = fetch().then((answer) => {
        if (height !== '') {
          store(key, answer, Infinity)
        } else {
          if (options.latestTtlMs > 0) store(key, answer, options.latestTtlMs)
          if (answer.height !== undefined && answer.height !== '0') store(keyOf(method, answer.height, request), answer, Infinity)
        }
        return answer
      }).finally(() => inflight.delete(key))
      inflight.set(key, call)
      return await call
    },

    stats: () => ({ entries: entries.size, bytes, inflight: inflight.size }),
    clear () {
      entries.clear()
      bytes = 0
    }
  }
}

export type ResponseCache = ReturnType<typeof createResponseCache>
