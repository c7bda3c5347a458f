import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { readBearerToken } from '@impact/service-kit'
import type { DelegationGrant, UcanVerifier } from '@impact/ucan'
import { UcanInvalidDelegationError, UcanInvalidInvocationError, UcanMissingError } from '../errors.ts'

/** Who is calling, as proven by a UCAN; `x-did` never contributes. */
export interface AuthContext {
  did: string
  via: 'invocation' | 'delegation'
  /** Unix seconds at which the credential stops being valid. */
  expiration: number
  /** The user's delegation to this oracle, kept for downstream calls only when the caller issued it. */
  delegation?: { raw: string, grant: DelegationGrant }
}

declare module 'fastify' {
  interface FastifyRequest { auth: AuthContext | null }
}

export interface UcanAuthOptions {
  verifier: UcanVerifier
  /** Whether a bare `x-ucan-delegation` is accepted as the credential (UCAN_ALLOW_BARE_DELEGATION_AUTH). */
  allowBareDelegation: boolean
  /** True for routes that skip auth entirely (their auth headers are not even read). */
  isPublic: (method: string, routeUrl: string) => boolean
}

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name]
  const first = Array.isArray(value) ? value[0] : value
  return first === undefined || first.trim() === '' ? undefined : first.trim()
}

/**
 * UCAN authentication for every non-public route, before the body is parsed: the invocation in
 * `Authorization: Bearer` (read only with `X-Auth-Type: ucan`) first, then the delegation in
 * `x-ucan-delegation` as fallback. Refusal reasons are logged, never sent.
 */
async function ucanAuth (app: FastifyInstance, options: UcanAuthOptions) {
  const { verifier } = options
  app.decorateRequest('auth', null)

  app.addHook('onRequest', async (request) => {
    const route = request.routeOptions.url
    // Unknown routes fall through to the JSON 404; preflights are answered by CORS.
    if (route === undefined || request.method === 'OPTIONS' || options.isPublic(request.method, route)) return

    const ucanSelected = header(request, 'x-auth-type')?.toLowerCase() === 'ucan'
    const bearer = ucanSelected ? readBearerToken(request.headers.authorization) : undefined
    const delegation = header(request, 'x-ucan-delegation')

    if (bearer !== undefined) {
      const verdict = await verifier.verifyInvocation(bearer)
      if (verdict.error !== undefined) {
        request.log.info({ reason: verdict.error.reason }, 'UCAN invocation refused')
        throw new UcanInvalidInvocationError()
      }
      const auth: AuthContext = { did: verdict.ok.did, via: 'invocation', expiration: verdict.ok.expiration }
      if (delegation !== undefined) {
        const grant = await verifier.verifyDelegation(delegation)
        if (grant.ok !== undefined && grant.ok.issuer === auth.did) auth.delegation = { raw: delegation, grant: grant.ok }
        else request.log.info({ reason: grant.error?.reason ?? 'issuer is not the invoker' }, 'x-ucan-delegation ignored')
      }
      request.auth = auth
      return
    }

    if (delegation !== undefined && options.allowBareDelegation) {
      const grant = await verifier.verifyDelegation(delegation)
      if (grant.error !== undefined) {
        request.log.info({ reason: grant.error.reason }, 'UCAN delegation refused')
        throw new UcanInvalidDelegationError()
      }
      request.log.info({ did: grant.ok.issuer }, 'authenticated by a bare delegation')
      request.auth = { did: grant.ok.issuer, via: 'delegation', expiration: grant.ok.expiration, delegation: { raw: delegation, grant: grant.ok } }
      return
    }
    throw new UcanMissingError()
  })
}

export const ucanAuthPlugin = fp(ucanAuth, { name: 'ucan-auth' })
