import type { FastifyReply, FastifyRequest } from 'fastify'
import { readBearerToken, safeEqual } from '@impact/service-kit'
import { ChainStatusError, GrpcCode } from '../errors.ts'

/**
 * REST gating for deployments that need it: `Authorization: Bearer <key>` or `X-API-Key: <key>`.
 * Missing → 401 (Unauthenticated), wrong → 403 (PermissionDenied), as gated Cosmos REST proxies
 * answer. Every configured key is compared in constant time, so timing reveals nothing.
 */
export function apiKeyGuard (keys: readonly string[]) {
  return async function requireApiKey (request: FastifyRequest, reply: FastifyReply) {
    const header = request.headers['x-api-key']
    const presented = readBearerToken(request.headers.authorization) ?? (Array.isArray(header) ? header[0] : header)
    if (presented === undefined || presented === '') {
      reply.header('www-authenticate', 'Bearer')
      throw new ChainStatusError(GrpcCode.UNAUTHENTICATED, 'missing API key: send Authorization: Bearer <key> or X-API-Key: <key>')
    }
    let matched = false
    for (const key of keys) matched = safeEqual(presented, key) || matched
    if (!matched) throw new ChainStatusError(GrpcCode.PERMISSION_DENIED, 'API key not accepted')
  }
}
