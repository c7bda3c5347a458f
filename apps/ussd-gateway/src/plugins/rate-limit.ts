import rateLimit, { type RateLimitOptions as LimitSettings } from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { redisClientOf, type SharedState } from '@impact/shared-state'
import type { Config } from '../config.ts'
import { UssdRateLimitedError } from '../errors.ts'
import { normalisePhone } from '../schemas/ussd.ts'

/** Keys (IPs, phone numbers) counted per limit in a process without Redis; the least recent go beyond. */
const LOCAL_KEYS = 50_000

export interface RateLimitOptions {
  config: Config
  /** With Redis, every replica counts in the same keys. */
  state: SharedState
}

const parseList = (value: string | undefined) =>
  value?.split(',').map((ip) => ip.trim()).filter((ip) => ip !== '') ?? []

/** The spec's per-IP limit on every route of the scope, in Redis on the app's connection when there is one. */
async function ussdRateLimit (app: FastifyInstance, { config, state }: RateLimitOptions) {
  const redis = redisClientOf(state)
  await app.register(rateLimit, {
    global: true,
    max: config.RATE_LIMIT_MAX,
    timeWindow: config.RATE_LIMIT_WINDOW_MS,
    allowList: parseList(config.RATE_LIMIT_ALLOWLIST),
    cache: LOCAL_KEYS,
    // Aggregators ignore limit headers on normal replies: only a 429 has them.
    addHeadersOnExceeding: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false },
    ...(redis !== undefined ? { redis, nameSpace: `${config.REDIS_KEY_PREFIX}rl:` } : {}),
    errorResponseBuilder: (_request, context) => new UssdRateLimitedError(context.after)
  })
}

export default fp(ussdRateLimit, { name: 'ussd-rate-limit' })

/** The caller's number in a validated Africa's Talking (`phoneNumber`) or Hubtel (`Mobile`) body. */
function callerPhone (request: FastifyRequest): string {
  const body = request.body as { phoneNumber?: string, Mobile?: string }
  return normalisePhone(body.phoneNumber ?? body.Mobile ?? '')
}

/** The per-phone limit of the aggregator routes (users behind an aggregator share its IPs); one budget per phone. */
export function phoneRateLimit (app: FastifyInstance, config: Config): preHandlerAsyncHookHandler {
  const settings: LimitSettings = {
    max: config.RATE_LIMIT_PHONE_MAX,
    timeWindow: config.RATE_LIMIT_WINDOW_MS,
    keyGenerator: (request) => `phone:${callerPhone(request)}`,
    // The IP allowlist does not apply here.
    allowList: [],
    cache: LOCAL_KEYS
  }
  const limit = app.createRateLimit(settings)
  return async function limitPhone (request, reply) {
    const result = await limit(request)
    if (result.isAllowed || !result.isExceeded) return
    const seconds = Math.max(1, result.ttlInSeconds)
    reply.header('x-ratelimit-limit', result.max).header('x-ratelimit-remaining', 0)
      .header('x-ratelimit-reset', seconds).header('retry-after', seconds)
    throw new UssdRateLimitedError(`${seconds} seconds`)
  }
}
