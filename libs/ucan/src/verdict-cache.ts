import { createHash } from 'node:crypto'

interface Entry<T> { value: T, expiresAt: number }

/**
 * Remembers verdicts by the SHA-256 of the token, each for at most the token's own remaining
 * life (and a cap), so a cached "yes" never outlives the token. Bounded in entries: when full,
 * the oldest entry goes. Concurrent checks of the same token share one verification.
 */
export class VerdictCache<T> {
  private readonly entries = new Map<string, Entry<T>>()
  private readonly inflight = new Map<string, Promise<T>>()
  private readonly maxEntries: number

  constructor (maxEntries: number) {
    this.maxEntries = maxEntries
  }

  static key (kind: string, token: string): string {
    return createHash('sha256').update(kind).update('\0').update(token).digest('base64url')
  }

  get size (): number {
    return this.entries.size
  }

  async through (key: string, compute: () => Promise<{ value: T, ttlMs: number }>): Promise<T> {
    const hit = this.entries.get(key)
    if (hit !== undefined) {
      if (hit.expiresAt > Date.now()) return hit.value
      this.entries.delete(key)
    }
    const pending = this.inflight.get(key)
    if (pending !== undefined) return await pending
    const run = (async () => {
      const { value, ttlMs } = await compute()
      if (ttlMs > 0) {
        if (this.entries.size >= this.maxEntries) this.evict()
        this.entries.set(key, { value, expiresAt: Date.now() + ttlMs })
      }
      return value
    })()
    this.inflight.set(key, run)
    try {
      return await run
    } finally {
      this.inflight.delete(key)
    }
  }

  clear (): void {
    this.entries.clear()
  }

  private evict (): void {
    const now = Date.now()
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key)
    while (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string)
  }
}
