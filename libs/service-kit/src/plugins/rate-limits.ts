import rateLimit, { normalizeIP, type RateLimitOptions } from '@fastify/rate-limit'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { redisClientOf, type SharedState } from '@impact/shared-state'

/** At most `max` requests per window of `windowMs` milliseconds (a fixed window per key). */
export interface Budget { max: number, windowMs: number }

export interface RateLimitsOptions {
  /** The app's shared state: with Redis, every replica draws on the same budgets. */
  state: SharedState
  /** Namespace of the counters in Redis, e.g. `domain-api:rl:`. */
  namespace: string
  /** Requests per client IP (`request.ip`, so TRUST_PROXY decides what the IP is), on every counted route. */
  client: Budget
  /** 401s per client IP; once spent, the IP is refused even with valid credentials, so guessing learns nothing. */
  authFailures: Budget
  /** Requests per authenticated principal; `of` reads it from the request once authentication ran. */
  principal: Budget & { label: string, of: (request: FastifyRequest) => string | undefined }
  /** The app's coded 429 error, e.g. `new DomainRateLimitedError(reason, seconds)`. */
  error: (reason: string, retryAfterSeconds: number) => Error
  /** Routes neither counted nor refused (default: the probes `/health` and `/health/live`). */
  exempt?: string[]
}

type Limiter = ReturnType<FastifyInstance['createRateLimit']>
type Counted = Extract<Awaited<ReturnType<Limiter>>, { isAllowed: false }>

/** Local counters kept per limit in a process without Redis (LRU beyond that). */
const LOCAL_KEYS = 50_000

const TOO_MANY_REQUESTS = {
  $ref: 'ErrorBody#',
  description: 'Over a rate limit (per client, failed authentications per client, or per principal); ' +
    'Retry-After gives the seconds until the window ends',
  headers: {
    'retry-after': Type.Integer({ description: 'Seconds until the exhausted budget is renewed' }),
    'x-ratelimit-limit': Type.Integer({ description: 'Requests the exhausted budget allows per window' }),
    'x-ratelimit-remaining': Type.Integer({ description: 'Always 0 on a 429' }),
    'x-ratelimit-reset': Type.Integer({ description: 'Seconds until the window ends' })
  }
}

/**
 * A JSON API's rate limits on @fastify/rate-limit: per client IP, failed authentications per IP, and per
 * principal; in Redis when there is one (a Redis error is a 503). Register it before the routes, whose
 * response schemas it gives a 429.
 */
export async function registerRateLimits (app: FastifyInstance, options: RateLimitsOptions) {
  const redis = redisClientOf(options.state)
  const store = redis !== undefined ? { redis, nameSpace: options.namespace } : {}
  await app.register(rateLimit, { global: false, ...store })
  const exempt = new Set(options.exempt ?? ['/health', '/health/live'])
  const counted = (request: FastifyRequest) => !exempt.has(request.routeOptions.url ?? '')
  const ip = (request: FastifyRequest) => normalizeIP(request.ip)
  // The key carries the limit's name: the plugin's Redis store gives every limiter the same prefix
  // (`<namespace>undefinedundefined-`, as it names a limiter made outside a route).
  const limiter = (budget: Budget, key: (request: FastifyRequest) => string): Limiter => {
    const settings: RateLimitOptions = {
      max: budget.max,
      timeWindow: budget.windowMs,
      keyGenerator: key,
      cache: LOCAL_KEYS
    }
    return app.createRateLimit(settings)
  }
  const perClient = limiter(options.client, (request) => `ip:${ip(request)}`)
  const failures = limiter(options.authFailures, (request) => `auth-failures:${ip(request)}`)
  const { principal } = options
  const perPrincipal = limiter(principal, (request) => `principal:${principal.of(request) ?? ''}`)

  const refuse = (reply: FastifyReply, limit: Counted, reason: string): never => {
    const seconds = Math.max(1, limit.ttlInSeconds)
    reply.header('x-ratelimit-limit', limit.max).header('x-ratelimit-remaining', 0)
      .header('x-ratelimit-reset', seconds).header('retry-after', seconds)
    throw options.error(reason, seconds)
  }
  const spend = async (limit: Limiter, request: FastifyRequest, reply: FastifyReply, reason: string) => {
    const result = await limit(request)
    if (result.isAllowed) return
    if (result.isExceeded) refuse(reply, result, reason)
    const reported = reply.getHeader('x-ratelimit-remaining')
    if (reported !== undefined && Number(reported) <= result.remaining) return
    reply.header('x-ratelimit-limit', result.max).header('x-ratelimit-remaining', result.remaining)
      .header('x-ratelimit-reset', result.ttlInSeconds)
  }

  app.addHook('onRoute', (route) => {
    const response = route.schema?.response as Record<string, unknown> | undefined
    if (response === undefined || exempt.has(route.url) || '429' in response) return
    route.schema = { ...route.schema, response: { ...response, 429: TOO_MANY_REQUESTS } }
  })

  app.addHook('onRequest', async (request, reply) => {
    if (!counted(request)) return
    // Both at once: with Redis, one round trip of latency instead of two.
    const [, failed] = await Promise.all([
      spend(perClient, request, reply, 'Too many requests from this client'),
      failures(request, { increment: false })
    ])
    if (!failed.isAllowed && failed.remaining === 0) {
      refuse(reply, failed, 'Too many failed authentications from this client')
    }
  })

  app.addHook('preParsing', async (request, reply) => {
    if (principal.of(request) === undefined) return
    await spend(perPrincipal, request, reply, `Too many requests for this ${principal.label}`)
  })

  // Counted before the 401 is written, so a client's next attempt already sees it.
  app.addHook('onSend', async (request, reply) => {
    if (reply.statusCode !== 401 || !counted(request)) return
    try {
      await failures(request)
    } catch (err) {
      request.log.warn({ err }, 'could not count a failed authentication')
    }
  })
}

/** The three budgets' env for an app's `ConfigSchema`; `principal` names what the app authenticates. */
export function rateLimitConfigProperties (
  defaults: { client: Budget, authFailures: Budget, principal: Budget },
  principal: string
) {
  const max = (value: number, description: string) =>
    Type.Integer({ minimum: 1, maximum: 1_000_000, default: value, description })
  const window = (value: number, description: string) =>
    Type.Integer({ minimum: 1000, maximum: 86_400_000, default: value, description })
  return {
    RATE_LIMIT_MAX: max(
      defaults.client.max,
      'Requests per client IP per window, on every route but /health (429 beyond)'
    ),
    RATE_LIMIT_WINDOW_MS: window(defaults.client.windowMs, 'Window of RATE_LIMIT_MAX'),
    RATE_LIMIT_AUTH_FAILURES_MAX: max(
      defaults.authFailures.max,
      'Failed authentications (401) per client IP per window; ' +
        'beyond, every request of that IP gets 429 until the window ends'
    ),
    RATE_LIMIT_AUTH_FAILURES_WINDOW_MS: window(
      defaults.authFailures.windowMs,
      'Window of RATE_LIMIT_AUTH_FAILURES_MAX'
    ),
    RATE_LIMIT_PRINCIPAL_MAX: max(defaults.principal.max, `Requests per ${principal} per window (429 beyond)`),
    RATE_LIMIT_PRINCIPAL_WINDOW_MS: window(defaults.principal.windowMs, 'Window of RATE_LIMIT_PRINCIPAL_MAX')
  }
}

interface RateLimitConfig {
  RATE_LIMIT_MAX: number
  RATE_LIMIT_WINDOW_MS: number
  RATE_LIMIT_AUTH_FAILURES_MAX: number
  RATE_LIMIT_AUTH_FAILURES_WINDOW_MS: number
  RATE_LIMIT_PRINCIPAL_MAX: number
  RATE_LIMIT_PRINCIPAL_WINDOW_MS: number
}

/** The budgets of a config made with rateLimitConfigProperties. */
export const rateLimitBudgets = (config: RateLimitConfig) => ({
  client: { max: config.RATE_LIMIT_MAX, windowMs: config.RATE_LIMIT_WINDOW_MS },
  authFailures: { max: config.RATE_LIMIT_AUTH_FAILURES_MAX, windowMs: config.RATE_LIMIT_AUTH_FAILURES_WINDOW_MS },
  principal: { max: config.RATE_LIMIT_PRINCIPAL_MAX, windowMs: config.RATE_LIMIT_PRINCIPAL_WINDOW_MS }
})
