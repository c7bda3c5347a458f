import { TtlMap } from './ttl-map.ts'
import type { IncrOptions, MessageHandler, Scheduled, SetOptions, SharedState, Unsubscribe } from './types.ts'

/**
 * In-process implementation for a single replica, over a TtlMap of strings (expired keys are
 * dropped when read and by a periodic sweep).
 */
export function createMemoryState (): SharedState {
  const entries = new TtlMap<string>()
  const channels = new Map<string, Set<MessageHandler>>()
  // Read by periodic sweeps, not per request: a due scan is a plain loop over the members.
  const schedules = new Map<string, Map<string, number>>()
  const scheduleOf = (key: string) => {
    let members = schedules.get(key)
    if (members === undefined) schedules.set(key, members = new Map())
    return members
  }
  const remove = (key: string, member: string) => {
    const members = schedules.get(key)
    const removed = members?.delete(member) ?? false
    if (members?.size === 0) schedules.delete(key)
    return removed
  }

  return {
    kind: 'memory',
    async get (key) {
      return entries.get(key) ?? null
    },
    async set (key, value, options: SetOptions = {}) {
      if (options.ifAbsent === true && entries.has(key)) return entries.get(key) === value
      entries.set(key, value, options.ttlMs)
      return true
    },
    async getAndTouch (key, ttlMs) {
      return entries.touch(key, ttlMs) ?? null
    },
    async del (key) {
      return entries.delete(key)
    },
    async delIfValue (key, value) {
      return entries.get(key) === value && entries.delete(key)
    },
    async touchIfValue (key, value, ttlMs) {
      if (entries.get(key) !== value) return false
      entries.touch(key, ttlMs)
      return true
    },
    async replaceIfValue (key, expected, value, ttlMs) {
      if (entries.get(key) !== expected) return false
      entries.set(key, value, ttlMs)
      return true
    },
    async incr (key, options: IncrOptions = {}) {
      const ttl = entries.ttl(key)
      const next = Number(entries.get(key) ?? 0) + (options.by ?? 1)
      // An existing counter keeps its expiry, as INCR does in Redis.
      entries.set(key, String(next), ttl === undefined ? options.ttlMs : ttl === -1 ? undefined : Math.max(1, ttl))
      return next
    },
    async ttl (key) {
      return entries.ttl(key) ?? -2
    },
    async scan (prefix, limit) {
      return entries.keys(prefix, limit)
    },
    async schedule (key, member, at) {
      scheduleOf(key).set(member, at)
    },
    async due (key, upTo, limit) {
      const found: Scheduled[] = []
      for (const [member, at] of schedules.get(key) ?? []) if (at <= upTo) found.push({ member, at })
      return found.sort((a, b) => a.at - b.at || (a.member < b.member ? -1 : 1)).slice(0, limit)
    },
    async claimDue (key, member, upTo, nextAt) {
      const members = schedules.get(key)
      const at = members?.get(member)
      if (members === undefined || at === undefined || at > upTo) return false
      members.set(member, nextAt)
      return true
    },
    async unschedule (key, member, options = {}) {
      const at = schedules.get(key)?.get(member)
      if (at === undefined || (options.dueBy !== undefined && at > options.dueBy)) return false
      return remove(key, member)
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
      entries.close()
      channels.clear()
      schedules.clear()
    }
  }
}
