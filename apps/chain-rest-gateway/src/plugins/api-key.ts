import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { readBearerToken, safeEqual } from '@impact/service-kit'
import { ChainStatusError, GrpcCode } from '../errors.ts'

export interface ApiKeyOptions {
  keys: readonly string[]
}

/** The key a request presents (`Authorization: Bearer` or `X-API-Key`) checked against `keys`. */
export function presentedKey (request: FastifyRequest, keys: readonly string[]): 'missing' | 'wrong' | 'accepted' {
  const header = request.headers['x-api-key']
  const presented = readBearerToken(request.headers.authorization) ?? (Array.isArray(header) ? header[0] : header)
  if (presented === undefined || presented === '') return 'missing'
  // Every key is compared in constant time, so timing reveals nothing.
  let matched = false
  for (const key of keys) matched = safeEqual(presented, key) || matched
  return matched ? 'accepted' : 'wrong'
}

/** Optional REST gating by `Authorization: Bearer <key>` or `X-API-Key`: missing 401, wrong 403, as gated proxies. */
async function apiKey (app: FastifyInstance, { keys }: ApiKeyOptions) {
  app.addHook('preHandler', async function requireApiKey (request, reply) {
    const state = presentedKey(request, keys)
    if (state === 'missing') {
      reply.header('www-authenticate', 'Bearer')
      const message = 'missing API key: send Authorization: Bearer <key> or X-API-Key: <key>'
      throw new ChainStatusError(GrpcCode.UNAUTHENTICATED, message)
    }
    if (state === 'wrong') throw new ChainStatusError(GrpcCode.PERMISSION_DENIED, 'API key not accepted')
  })
}

/** Not encapsulated: the hook guards the routes of the context that registers it (the gateway's). */
export const apiKeyPlugin = fp(apiKey, { name: 'api-key' })
