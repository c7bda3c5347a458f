import type { FastifyBaseLogger } from 'fastify'
import type { DelegationGrant, UcanVerifier } from '@impact/ucan'

/** Who is calling, as proven by a UCAN; `x-did` / the socket's `userDid` never contribute. */
export interface AuthContext {
  did: string
  via: 'invocation' | 'delegation'
  /** Unix seconds at which the credential stops being valid. */
  expiration: number
  /** The user's delegation to this oracle, kept for downstream calls only when the caller issued it. */
  delegation?: { raw: string, grant: DelegationGrant }
}

/** The two artifacts a client may present, wherever they travel (HTTP headers, socket handshake). */
export interface Credentials {
  invocation?: string | undefined
  delegation?: string | undefined
}

export type AuthFailure = 'missing' | 'invalid_invocation' | 'invalid_delegation'
export type AuthOutcome = { ok: AuthContext, failure?: undefined } | { ok?: undefined, failure: AuthFailure }

export interface AuthenticateOptions {
  verifier: UcanVerifier
  /** Whether a bare delegation is accepted as the credential (UCAN_ALLOW_BARE_DELEGATION_AUTH). */
  allowBareDelegation: boolean
}

/**
 * The one UCAN authentication rule of the runtime, shared by HTTP routes and WebSocket
 * handshakes: the invocation first; a delegation next to it is kept for downstream use only
 * when it verifies and its issuer is the invoker; otherwise a bare delegation as fallback.
 * Refusal reasons are logged (never the tokens), and each interface words the failure itself.
 */
export async function authenticate (options: AuthenticateOptions, credentials: Credentials, log: FastifyBaseLogger): Promise<AuthOutcome> {
  const { verifier } = options
  const { invocation, delegation } = credentials

  if (invocation !== undefined) {
    const verdict = await verifier.verifyInvocation(invocation)
    if (verdict.error !== undefined) {
      log.info({ reason: verdict.error.reason }, 'UCAN invocation refused')
      return { failure: 'invalid_invocation' }
    }
    const auth: AuthContext = { did: verdict.ok.did, via: 'invocation', expiration: verdict.ok.expiration }
    if (delegation !== undefined) {
      const grant = await verifier.verifyDelegation(delegation)
      if (grant.ok !== undefined && grant.ok.issuer === auth.did) auth.delegation = { raw: delegation, grant: grant.ok }
      else log.info({ reason: grant.error?.reason ?? 'issuer is not the invoker' }, 'UCAN delegation next to the invocation ignored')
    }
    return { ok: auth }
  }

  if (delegation !== undefined && options.allowBareDelegation) {
    const grant = await verifier.verifyDelegation(delegation)
    if (grant.error !== undefined) {
      log.info({ reason: grant.error.reason }, 'UCAN delegation refused')
      return { failure: 'invalid_delegation' }
    }
    log.info({ did: grant.ok.issuer }, 'authenticated by a bare delegation')
    return { ok: { did: grant.ok.issuer, via: 'delegation', expiration: grant.ok.expiration, delegation: { raw: delegation, grant: grant.ok } } }
  }
  return { failure: 'missing' }
}

/** A credential value as received: trimmed, and absent when empty or not a string. */
export function credential (value: unknown): string | undefined {
  const first = Array.isArray(value) ? value[0] as unknown : value
  if (typeof first !== 'string') return undefined
  const trimmed = first.trim()
  return trimmed === '' ? undefined : trimmed
}
