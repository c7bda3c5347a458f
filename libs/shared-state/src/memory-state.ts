import type { IncrOptions, MessageHandler, SetOptions, SharedState, Unsubscribe } from './types.ts'

interface Entry { value: string, expiresAt: number }

const SWEEP_INTERVAL_MS = 30_000

/**
 * In-process implementation for a single replica. Expired keys are dropped when read and by a
 * periodic sweep, so memory stays bounded by the live keys.
 */
export function createMemoryState (): SharedState {
  const entries = new Map<string, Entry>()
  const channels = new Map<string, Set<MessageHandler>>()

  const live = (key: string): Entry | undefined => {
    const entry = entries.get(key)
    if (entry === undefined) return undefined
    if (entry.expiresAt <= Date.now()) {
      entries.delete(key)
      return undefined
    }
    return entry
  }
  const expiry = (ttlMs?: number) => (ttlMs !== undefined && ttlMs > 0 ? Date.now() + ttlMs : Number.POSITIVE_INFINITY)

  const sweeper = setInterval(() => {
    const now = Date.now()
    for (const [key, entry] of entries) if (entry.expiresAt <= now) entries.delete(key)
  }, SWEEP_INTERVAL_MS)
  sweeper.unref()

  return {
    kind: 'memory',
    async get (key) {
      return live(key)?.value ?? null
    },
    async set (key, value, options: SetOptions = {}) {
      if (options.ifAbsent === true && live(key) !== undefined) return false
      entries.set(key, { value, expiresAt: expiry(options.ttlMs) })
      return true
    },
    async getAndTouch (key, ttlMs) {
      const entry = live(key)
      if (entry === undefined) return null
      entry.expiresAt = expiry(ttlMs)
      return entry.value
    },
    async del (key) {
      return live(key) !== undefined && entries.delete(key)
    },
    async incr (key, options: IncrOptions = {}) {
      const entry = live(key)
      const next = (entry === undefined ? 0 : Number(entry.value)) + (options.by ?? 1)
      if (entry === undefined) entries.set(key, { value: String(next), expiresAt: expiry(options.ttlMs) })
      else entry.value = String(next)
      return next
    },
    async ttl (key) {
      const entry = live(key)
      if (entry === undefined) return -2
      return Number.isFinite(entry.expiresAt) ? Math.max(0, entry.expiresAt - Date.now()) : -1
    },
    async scan (prefix, limit = Number.POSITIVE_INFINITY) {
      const keys: string[] = []
      for (const key of entries.keys()) {
        if (keys.length >= limit) break
        if (key.startsWith(prefix) && live(key) !== undefined) keys.push(key)
      }
      return keys
    },
    async publish (channel, message) {
      const handlers = channels.get(channel)
      if (handlers === undefined) return
      // Deliver asynchronously, as Redis does, so publishers never run subscriber code inline.
      for (const handler of handlers) queueMicrotask(() => handler(message))
    },
    async subscribe (channel, handler): Promise<Unsubscribe> {
      let handlers = channels.get(channel)
      if (handlers === undefined) channels.set(channel, handlers = new Set())
      // Wrap so the same function can subscribe twice and unsubscribe each registration.
      const registration: MessageHandler = (message) => handler(message)
      handlers.add(registration)
      return async () => {
        handlers.delete(registration)
        if (handlers.size === 0) channels.delete(channel)
      }
    },
    async ping () {},
    async close () {
      clearInterval(sweeper)
      entries.clear()
      channels.clear()
    }
  }
}
