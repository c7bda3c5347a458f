import { Redis } from 'ioredis'
import type { MessageHandler, Scheduled, SharedState, Unsubscribe } from './types.ts'

// Compare and act in one script: a GET then a DEL from the client could delete a value written in between.
const DEL_IF_VALUE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end"
// ioredis re-sends a command whose reply a reset connection lost; a SET NX that did write then meets
// its own value, which counts as written (values written this way are unique tokens).
const SET_IF_ABSENT = "if redis.call('SET', KEYS[1], ARGV[1], 'NX', unpack(ARGV, 2)) then return 1 end " +
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return 1 else return 0 end"
const TOUCH_IF_VALUE = "if redis.call('GET', KEYS[1]) == ARGV[1] then " +
  "return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end"
const REPLACE_IF_VALUE =
  "if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) return 1 " +
  'else return 0 end'

// Scores are compared as numbers: a claim moves a member only while it is due, a conditional removal likewise.
const CLAIM_DUE = "local at = redis.call('ZSCORE', KEYS[1], ARGV[1]) " +
  "if at and tonumber(at) <= tonumber(ARGV[2]) then redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1]) return 1 end " +
  'return 0'
const UNSCHEDULE_DUE = "local at = redis.call('ZSCORE', KEYS[1], ARGV[1]) " +
  "if at and tonumber(at) <= tonumber(ARGV[2]) then return redis.call('ZREM', KEYS[1], ARGV[1]) end " +
  'return 0'

export interface RedisStateOptions {
  url: string
  /** Namespace for every key and channel, e.g. `ussd:`. */
  prefix: string
  /** Longest a connection attempt may take. */
  connectTimeoutMs?: number
  /**
   * Longest a command waits for its reply, queued time included: ioredis would queue it across reconnection
   * back-off. Subscriptions are exempt, so one queued in an outage takes effect when Redis is back.
   */
  commandTimeoutMs?: number
}

export const DEFAULT_COMMAND_TIMEOUT_MS = 2000

const clients = new WeakMap<SharedState, Redis>()

/** The command connection behind a Redis state, for libraries that speak Redis (the rate limiter). */
export const redisClientOf = (state: SharedState): Redis | undefined => clients.get(state)

/**
 * Redis implementation: one command connection, plus one subscriber connection opened on the
 * first `subscribe` (a Redis connection in subscribe mode cannot run other commands).
 */
export function createRedisState (options: RedisStateOptions): SharedState & { readonly client: Redis } {
  const { prefix } = options
  const connect = (commandTimeout?: number) => new Redis(options.url, {
    lazyConnect: false,
    connectTimeout: options.connectTimeoutMs ?? 5000,
    maxRetriesPerRequest: 2,
    ...(commandTimeout !== undefined ? { commandTimeout } : {}),
    // Keep reconnecting with a capped back-off: a Redis restart must not need an app restart.
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000)
  })
  const client = connect(options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS)
  // Errors surface on the commands that fail; without a listener ioredis would log every retry.
  client.on('error', () => {})
  let subscriber: Redis | undefined
  const handlers = new Map<string, Set<MessageHandler>>()

  const getSubscriber = (): Redis => {
    if (subscriber !== undefined) return subscriber
    subscriber = connect()
    subscriber.on('error', () => {})
    subscriber.on('message', (channel: string, message: string) => {
      for (const handler of handlers.get(channel) ?? []) handler(message)
    })
    return subscriber
  }

  const state: SharedState & { readonly client: Redis } = {
    kind: 'redis',
    client,
    async get (key) {
      return await client.get(prefix + key)
    },
    async set (key, value, { ttlMs, ifAbsent } = {}) {
      const k = prefix + key
      if (ifAbsent === true) {
        const expiry = ttlMs !== undefined ? ['PX', ttlMs] : []
        return (await client.eval(SET_IF_ABSENT, 1, k, value, ...expiry)) === 1
      }
      const result = ttlMs !== undefined ? await client.set(k, value, 'PX', ttlMs) : await client.set(k, value)
      return result === 'OK'
    },
    async getAndTouch (key, ttlMs) {
      return await client.getex(prefix + key, 'PX', ttlMs)
    },
    async del (key) {
      return (await client.del(prefix + key)) > 0
    },
    async delIfValue (key, value) {
      return (await client.eval(DEL_IF_VALUE, 1, prefix + key, value)) === 1
    },
    async touchIfValue (key, value, ttlMs) {
      return (await client.eval(TOUCH_IF_VALUE, 1, prefix + key, value, ttlMs)) === 1
    },
    async replaceIfValue (key, expected, value, ttlMs) {
      return (await client.eval(REPLACE_IF_VALUE, 1, prefix + key, expected, value, ttlMs)) === 1
    },
    async incr (key, { by = 1, ttlMs } = {}) {
      const k = prefix + key
      if (ttlMs === undefined) return await client.incrby(k, by)
      // INCRBY and a create-only PEXPIRE in one round trip keep the window fixed.
      const results = await client.multi().incrby(k, by).pexpire(k, ttlMs, 'NX').exec()
      const [error, value] = results?.[0] ?? [new Error('redis transaction aborted'), null]
      if (error !== null) throw error
      return Number(value)
    },
    async ttl (key) {
      return await client.pttl(prefix + key)
    },
    async scan (keyPrefix, limit = Number.POSITIVE_INFINITY) {
      const keys: string[] = []
      const pattern = prefix + keyPrefix.replace(/[*?[\]\\]/g, '\\$&') + '*'
      let cursor = '0'
      do {
        const [next, batch] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 500)
        cursor = next
        for (const key of batch) {
          if (keys.length >= limit) return keys
          keys.push(key.slice(prefix.length))
        }
      } while (cursor !== '0')
      return keys
    },
    async schedule (key, member, at) {
      await client.zadd(prefix + key, at, member)
    },
    async due (key, upTo, limit) {
      const flat = await client.zrangebyscore(prefix + key, '-inf', upTo, 'WITHSCORES', 'LIMIT', 0, limit)
      const found: Scheduled[] = []
      for (let i = 0; i + 1 < flat.length; i += 2) found.push({ member: flat[i] ?? '', at: Number(flat[i + 1]) })
      return found
    },
    async claimDue (key, member, upTo, nextAt) {
      return (await client.eval(CLAIM_DUE, 1, prefix + key, member, upTo, nextAt)) === 1
    },
    async unschedule (key, member, options = {}) {
      if (options.dueBy === undefined) return (await client.zrem(prefix + key, member)) > 0
      return (await client.eval(UNSCHEDULE_DUE, 1, prefix + key, member, options.dueBy)) === 1
    },
    async publish (channel, message) {
      await client.publish(prefix + channel, message)
    },
    async subscribe (channel, handler): Promise<Unsubscribe> {
      const full = prefix + channel
      let set = handlers.get(full)
      if (set === undefined) {
        handlers.set(full, set = new Set())
        await getSubscriber().subscribe(full)
      }
      const registration: MessageHandler = (message) => handler(message)
      set.add(registration)
      return async () => {
        set.delete(registration)
        if (set.size === 0 && handlers.get(full) === set) {
          handlers.delete(full)
          await subscriber?.unsubscribe(full)
        }
      }
    },
    async ping () {
      await client.ping()
    },
    async close () {
      handlers.clear()
      await Promise.allSettled([client.quit(), subscriber?.quit()])
    }
  }
  clients.set(state, client)
  return state
}
