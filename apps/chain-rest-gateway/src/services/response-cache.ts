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

export function createResponseCache (options: ResponseCacheOptions) {
  const entries = new Map<string, Entry>()
  const inflight = new Map<string, Promise<CachedAnswer>>()
  const aliases = new Map<string, string>()
  let bytes = 0

  const keyOf = (method: string, height: string, request: Uint8Array) =>
    `${method}\n${height}\n${Buffer.from(request.buffer, request.byteOffset, request.byteLength).toString('base64')}`

  function remove (key: string, entry: Entry) {
    entries.delete(key)
    bytes -= entry.size
  }

  function store (key: string, answer: CachedAnswer, ttlMs: number) {
    const size = answer.body.byteLength + key.length
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

  function alias (rawKey: string, key: string) {
    if (aliases.size >= options.maxEntries) aliases.delete(aliases.keys().next().value!)
    aliases.set(rawKey, key)
  }

  return {
    enabled: options.enabled,

    /** A kept answer for a raw request key seen before, without decoding the request. */
    peek (rawKey: string): CachedAnswer | undefined {
      const key = aliases.get(rawKey)
      if (key === undefined) return undefined
      const answer = lookup(key)
      if (answer === undefined) aliases.delete(rawKey)
      return answer
    },

    /**
     * The answer for (method, height, request): from the cache, from an identical call in flight,
     * or from `fetch`. `height` is the requested height, '' for latest.
     */
    async get (method: string, height: string, request: Uint8Array, fetch: () => Promise<CachedAnswer>, rawKey?: string): Promise<CachedAnswer> {
      if (!options.enabled) return await fetch()
      const key = keyOf(method, height, request)
      const cached = lookup(key)
      if (cached !== undefined) {
        if (rawKey !== undefined) alias(rawKey, key)
        return cached
      }
      const pending = inflight.get(key)
      if (pending !== undefined) return await pending
      const call = fetch().then((answer) => {
        if (height !== '') {
          store(key, answer, Infinity)
        } else {
          if (options.latestTtlMs > 0) store(key, answer, options.latestTtlMs)
          if (answer.height !== undefined && answer.height !== '0') store(keyOf(method, answer.height, request), answer, Infinity)
        }
        if (rawKey !== undefined) alias(rawKey, key)
        return answer
      }).finally(() => inflight.delete(key))
      inflight.set(key, call)
      return await call
    },

    stats: () => ({ entries: entries.size, bytes, inflight: inflight.size }),
    clear () {
      entries.clear()
      aliases.clear()
      bytes = 0
    }
  }
}

export type ResponseCache = ReturnType<typeof createResponseCache>
