import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { readBearerToken } from '@impact/service-kit'
import {
  UcanInvalidDelegationError, UcanInvalidInvocationError, UcanInvocationRequiredError, UcanMissingError
} from '../errors.ts'
import {
  authenticate,
  credential,
  type AuthContext,
  type AuthenticateOptions,
  type Credentials
} from '../services/authenticate.ts'

export type { AuthContext } from '../services/authenticate.ts'

declare module 'fastify' {
  interface FastifyRequest { auth: AuthContext | null }
}

export interface UcanAuthOptions extends AuthenticateOptions {
  /** Their auth headers are not even read. */
  isPublic: (method: string, routeUrl: string) => boolean
}

/** The bearer counts only with `X-Auth-Type: ucan`. */
export function headerCredentials (request: FastifyRequest): Credentials {
  const ucanSelected = credential(request.headers['x-auth-type'])?.toLowerCase() === 'ucan'
  return {
    invocation: ucanSelected ? readBearerToken(request.headers.authorization) : undefined,
    delegation: credential(request.headers['x-ucan-delegation'])
  }
}

export function callerDid (request: FastifyRequest): string {
  // Only a route wrongly left public gets here unauthenticated: refuse it rather than query for nobody.
  if (request.auth === null) throw new UcanMissingError()
  return request.auth.did
}

const FAILURES = {
  missing: UcanMissingError,
  invalid_invocation: UcanInvalidInvocationError,
  invocation_required: UcanInvocationRequiredError
}

// Before the body is parsed; refusal reasons are logged, never sent.
async function ucanAuth (app: FastifyInstance, options: UcanAuthOptions) {
  app.decorateRequest('auth', null)

  app.addHook('onRequest', async (request) => {
    const route = request.routeOptions.url
    // Unknown routes fall through to the JSON 404; preflights are answered by CORS.
    if (route === undefined || request.method === 'OPTIONS' || options.isPublic(request.method, route)) return
    const outcome = await authenticate(options, headerCredentials(request), request.log)
    if (outcome.failure === 'invalid_delegation') {
      throw new UcanInvalidDelegationError(outcome.detail === undefined ? '' : `: ${outcome.detail}`)
    }
    if (outcome.failure !== undefined) throw new FAILURES[outcome.failure]()
    request.auth = outcome.ok
  })
}

export const ucanAuthPlugin = fp(ucanAuth, { name: 'ucan-auth' })
