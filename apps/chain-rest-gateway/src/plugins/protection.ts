import { createHash } from 'node:crypto'
import { constants } from 'node:zlib'
import compress from '@fastify/compress'
import { readBearerToken, type App } from '@impact/service-kit'
import { rateLimitBudgets, registerRateLimits } from '@impact/service-kit/rate-limits'
import type { SharedState } from '@impact/shared-state'
import type { FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'
import { ChainStatusError, GrpcCode } from '../errors.ts'

/** The presented API key, hashed: counters in Redis never hold the key itself. */
function keyIdOf (request: FastifyRequest): string | undefined {
  const header = request.headers['x-api-key']
  const key = readBearerToken(request.headers.authorization) ?? (Array.isArray(header) ? header[0] : header)
  return key === undefined || key === '' ? undefined : createHash('sha256').update(key).digest('base64url')
}

/**
 * Rate limits per client IP and per API key (@fastify/rate-limit, counters in Redis when REDIS_URL is set,
 * so replicas share them; 429 code 8 beyond) and gzip/br compression of answers over 1 KiB.
 */
export async function registerProtection (
  app: App,
  config: Config,
  state: SharedState,
  prefix: string,
  apiKeys: string[]
) {
  await registerRateLimits(app, {
    state,
    namespace: `${prefix}rl:`,
    ...rateLimitBudgets(config),
    principal: {
      ...rateLimitBudgets(config).principal,
      label: 'API key',
      of: (request) => (apiKeys.length > 0 ? keyIdOf(request) : undefined)
    },
    error: (reason, seconds) => new ChainStatusError(
      GrpcCode.RESOURCE_EXHAUSTED,
      `${reason}: retry in ${seconds} s`
    )
  })
  await app.register(compress, {
    threshold: 1024,
    encodings: ['br', 'gzip'],
    // Answers are compressed per request: a fast brotli level keeps up with the cache.
    brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } }
  })
}
