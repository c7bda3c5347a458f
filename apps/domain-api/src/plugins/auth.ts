import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { readBearerToken } from '@impact/service-kit'
import { DomainAuthMissingError, DomainForbiddenError } from '../errors.ts'
import type { Role } from '../schemas/common.ts'
import type { ApiKeyService, Caller } from '../services/api-keys.ts'

const CALLER = 'caller'

/** Declares the per-request caller slot up front (set by `authorize`, read by `callerOf`). */
async function apiKeyAuth (app: FastifyInstance) {
  app.decorateRequest(CALLER, null)
}

/** Not encapsulated: every route module and the per-key rate limit read the caller slot. */
export const apiKeyAuthPlugin = fp(apiKeyAuth, { name: 'api-key-auth' })

export const callerOf = (request: FastifyRequest): Caller => request.getDecorator<Caller>(CALLER)

/** The admitted key's id (the per-key rate limit's principal); docs routes have no caller slot. */
export const keyIdOf = (request: FastifyRequest): string | undefined =>
  CALLER in request ? request.getDecorator<Caller | null>(CALLER)?.keyId : undefined

/**
 * An onRequest hook admitting callers whose key holds one of `roles` (any valid key when empty).
 * It runs before the body is read, so unauthenticated requests cost no parsing.
 */
export function authorize (apiKeys: ApiKeyService, roles: Role[] = []) {
  return async function requireApiKey (request: FastifyRequest, reply: FastifyReply) {
    const token = readBearerToken(request.headers.authorization)
    if (token === undefined) {
      reply.header('www-authenticate', 'Bearer')
      throw new DomainAuthMissingError()
    }
    let caller: Caller
    try {
      caller = await apiKeys.authenticate(token)
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 401) {
        reply.header('www-authenticate', 'Bearer error="invalid_token"')
      }
      throw error
    }
    if (roles.length > 0 && !roles.some((role) => caller.roles.includes(role))) {
      throw new DomainForbiddenError(roles.join(' or '))
    }
    request.setDecorator(CALLER, caller)
  }
}
