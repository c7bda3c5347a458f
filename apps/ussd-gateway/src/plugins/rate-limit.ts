import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { SharedState } from '@impact/shared-state'
import type { Redis } from 'ioredis'
import type { Config } from '../config.ts'
import { UssdRateLimitedError } from '../errors.ts'
import { NumberCounts, phoneDigits } from '../services/counts.ts'
import { WindowCounter, windowCounterStore } from './window-counter.ts'

/** Keys counted per window in this process (IPs, phone numbers) before the oldest is dropped. */
const LOCAL_KEYS = 50_000

const redisClient = (state: SharedState): Redis | undefined =>
  state.kind === 'redis' && 'client' in state ? (state as SharedState & { client: Redis }).client : undefined

const parseList = (value: string | undefined) => value?.split(',').map((ip) => ip.trim()).filter((ip) => ip !== '') ?? []

/**
 * The per-IP limit of the spec (RATE_LIMIT_MAX per window, default 100/min) on every route of the
 * calling scope, counted in Redis when the app has one so all replicas share the budget. The
 * client IP is `request.ip`, which honours X-Forwarded-For only with TRUST_PROXY_ENABLED.
 * Returns a factory of per-phone limiters: behind an aggregator all users share a few IPs, so
 * each phone number gets its own budget (RATE_LIMIT_PHONE_MAX) as well. Without Redis both
 * limits count in fixed-window counters of this process (window-counter.ts), and the phone check
 * is a plain synchronous call: on the busiest route it is a table read and write, no promise.
 */
export async function registerRateLimits (app: FastifyInstance, config: Config, state: SharedState) {
  const redis = redisClient(state)
  await app.register(rateLimit, {
    global: true,
    max: config.RATE_LIMIT_MAX,
    timeWindow: config.RATE_LIMIT_WINDOW_MS,
    allowList: parseList(config.RATE_LIMIT_ALLOWLIST),
    // Aggregators ignore limit headers on normal replies; only a 429 carries them (and Retry-After).
    addHeadersOnExceeding: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false },
    ...(redis !== undefined ? { redis, nameSpace: `${config.REDIS_KEY_PREFIX}rl:` } : { store: windowCounterStore(LOCAL_KEYS) }),
    errorResponseBuilder: (_request, context) => new UssdRateLimitedError(context.after)
  })

  // One budget per phone across every route (`/api/ussd` and the Hubtel adapter alike), as in Redis.
  const localPhones = redis === undefined ? new WindowCounter(LOCAL_KEYS, (limit) => new NumberCounts(limit)) : undefined

  /**
   * A per-phone limiter for one route, reading the phone from the validated body with `phoneOf`.
   * It counts the request; over the limit it sets Retry-After and throws the 429 error. Routes
   * call it first thing in their handler: a preHandler hook would cost a hook stage per request
   * for the same effect. Without Redis it is synchronous (a table read and write, no promise).
   */
  return function phoneLimit (phoneOf: (request: FastifyRequest) => string) {
    if (localPhones !== undefined) {
      return function limitPhone (request: FastifyRequest, reply: FastifyReply): void {
        const { current, ttl } = localPhones.hit(phoneDigits(phoneOf(request)), config.RATE_LIMIT_WINDOW_MS)
        if (current <= config.RATE_LIMIT_PHONE_MAX) return
        const seconds = Math.ceil(ttl / 1000)
        reply.header('retry-after', seconds)
        throw new UssdRateLimitedError(`${seconds} seconds`)
      }
    }
    // A fixed window per phone in the shared state (one round trip), next to the plugin's per-IP keys: `<prefix>rl:phone:<number>`.
    return async function limitPhone (request: FastifyRequest, reply: FastifyReply): Promise<void> {
      const key = `rl:phone:${phoneOf(request)}`
      const current = await state.incr(key, { ttlMs: config.RATE_LIMIT_WINDOW_MS })
      if (current <= config.RATE_LIMIT_PHONE_MAX) return
      const seconds = Math.max(1, Math.ceil((await state.ttl(key)) / 1000))
      reply.header('retry-after', seconds)
      throw new UssdRateLimitedError(`${seconds} seconds`)
    }
  }
}

export type PhoneLimit = Awaited<ReturnType<typeof registerRateLimits>>
