import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { readBearerToken } from '@impact/service-kit'
import { DomainAuthMissingError, DomainForbiddenError, DomainUcanNotAcceptedError } from '../errors.ts'
import type { Role } from '../schemas/role.ts'
import { principalOf, type Ability, type ApiKeyService, type Caller } from '../services/api-keys.ts'

const CALLER = 'caller'

async function apiKeyAuth (app: FastifyInstance) {
  app.decorateRequest(CALLER, null)
}

/** Not encapsulated: every route module and the per-key rate limit read the caller slot. */
export const apiKeyAuthPlugin = fp(apiKeyAuth, { name: 'api-key-auth' })

export const callerOf = (request: FastifyRequest): Caller => request.getDecorator<Caller>(CALLER)

/** The per-principal rate limit's key. */
export const keyIdOf = (request: FastifyRequest): string | undefined => {
  const caller = CALLER in request ? request.getDecorator<Caller | null>(CALLER) : null
  return caller === null ? undefined : principalOf(caller)
}

export interface UcanRequirement {
  /** Without one the route takes API keys only. */
  ability?: Ability
  /** Default: the roles asked of keys. */
  roles?: Role[]
}

const isUcan = (request: FastifyRequest) => {
  const type = request.headers['x-auth-type']
  return typeof type === 'string' && type.trim().toLowerCase() === 'ucan'
}

/** An onRequest hook, so unauthenticated requests cost no parsing. */
export function authorize (
  apiKeys: ApiKeyService,
  roles: Role[] = [],
  ucan: UcanRequirement = roles.length === 0 ? { ability: 'domain/read' } : {}
) {
  return async function requireCaller (request: FastifyRequest, reply: FastifyReply) {
    const token = readBearerToken(request.headers.authorization)
    if (token === undefined) {
      reply.header('www-authenticate', 'Bearer')
      throw new DomainAuthMissingError()
    }
    let caller: Caller
    try {
      if (isUcan(request)) {
        if (ucan.ability === undefined) throw new DomainUcanNotAcceptedError()
        caller = await apiKeys.authenticateInvocation(token, ucan.ability, request.log)
      } else {
        caller = await apiKeys.authenticate(token)
      }
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 401) {
        reply.header('www-authenticate', 'Bearer error="invalid_token"')
      }
      throw error
    }
    const needed = caller.via === 'ucan' ? (ucan.roles ?? roles) : roles
    if (needed.length > 0 && !needed.some((role) => caller.roles.includes(role))) {
      throw new DomainForbiddenError(needed.join(' or '))
    }
    request.setDecorator(CALLER, caller)
  }
}
