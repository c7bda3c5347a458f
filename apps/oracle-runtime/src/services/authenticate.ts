import type { FastifyBaseLogger } from 'fastify'
import {
  covers, ORACLE_AUTH_CAPABILITY, type DelegationGrant, type UcanFailureReason, type UcanVerifier
} from '@impact/ucan'

/** Who is calling, as proven by a UCAN; `x-did` / the socket's `userDid` never contribute. */
export interface AuthContext {
  did: string
  via: 'invocation' | 'delegation'
  /** Unix seconds at which the credential stops being valid. */
  expiration: number
  /** CIDs of the credential and of every proof in it: a connection opened with it ends when one is revoked. */
  cids: string[]
  /** The user's delegation to this oracle, kept for downstream calls only when the caller issued it. */
  delegation?: { raw: string, grant: DelegationGrant }
}

/** The two artifacts a client may present, wherever they travel (HTTP headers, socket handshake). */
export interface Credentials {
  invocation?: string | undefined
  delegation?: string | undefined
}

export type AuthFailure = 'missing' | 'invalid_invocation' | 'invalid_delegation' | 'invocation_required'
export type AuthOutcome =
  | { ok: AuthContext, failure?: undefined }
  /** `detail` says why a delegation was refused when the reason is policy, not cryptography (safe to tell). */
  | { ok?: undefined, failure: AuthFailure, detail?: string }

export interface AuthenticateOptions {
  verifier: UcanVerifier
  /** Whether a bare delegation is accepted as the credential (UCAN_ALLOW_BARE_DELEGATION_AUTH). */
  allowBareDelegation: boolean
  /** The verifier's delegation lifetime cap (UCAN_DELEGATION_MAX_TTL_SECONDS), for the refusal's wording. */
  maxDelegationTtlSeconds: number
}

const duration = (seconds: number) => seconds % 86_400 === 0 ? `${seconds / 86_400} days` : `${seconds} s`

/** Why a delegation was refused, in words a client may see, for the refusals that are policy; otherwise undefined. */
export function delegationPolicyDetail (reason: UcanFailureReason, maxTtlSeconds: number): string | undefined {
  if (reason === 'revoked') return 'it has been revoked'
  if (reason !== 'lifetime_too_long') return undefined
  return `it lives longer than ${duration(maxTtlSeconds)}, the longest this oracle accepts`
}

const NOT_FOR_AUTH = `it does not grant ${ORACLE_AUTH_CAPABILITY.can} on ${ORACLE_AUTH_CAPABILITY.with}, ` +
  'which authenticating with a delegation alone needs'

/**
 * The one UCAN authentication rule of the runtime, shared by HTTP routes and WebSocket
 * handshakes: the invocation first; a delegation next to it is kept for downstream use only
 * when it verifies and its issuer is the invoker; otherwise a bare delegation as fallback, when
 * allowed and only if it grants the oracle itself (`*` on `ixo:oracle`), not just a downstream
 * service. Refusal reasons are logged (never the tokens), and each interface words the failure itself.
 */
export async function authenticate (
  options: AuthenticateOptions,
  credentials: Credentials,
  log: FastifyBaseLogger
): Promise<AuthOutcome> {
  const { verifier } = options
  const { invocation, delegation } = credentials

  if (invocation !== undefined) {
    const verdict = await verifier.verifyInvocation(invocation)
    if (verdict.error !== undefined) {
      log.info({ reason: verdict.error.reason }, 'UCAN invocation refused')
      return { failure: 'invalid_invocation' }
    }
    const { did, expiration, cids } = verdict.ok
    const auth: AuthContext = { did, via: 'invocation', expiration, cids }
    if (delegation !== undefined) {
      const grant = await verifier.verifyDelegation(delegation)
      if (grant.ok !== undefined && grant.ok.issuer === auth.did) {
        auth.delegation = { raw: delegation, grant: grant.ok }
      } else {
        const reason = grant.error?.reason ?? 'issuer is not the invoker'
        log.info({ reason }, 'UCAN delegation next to the invocation ignored')
      }
    }
    return { ok: auth }
  }

  if (delegation === undefined) return { failure: 'missing' }
  if (!options.allowBareDelegation) return { failure: 'invocation_required' }
  const grant = await verifier.verifyDelegation(delegation)
  if (grant.error !== undefined) {
    log.info({ reason: grant.error.reason }, 'UCAN delegation refused')
    const detail = delegationPolicyDetail(grant.error.reason, options.maxDelegationTtlSeconds)
    return detail === undefined ? { failure: 'invalid_delegation' } : { failure: 'invalid_delegation', detail }
  }
  if (!covers(grant.ok.capabilities, ORACLE_AUTH_CAPABILITY)) {
    log.info({ reason: 'capability' }, 'UCAN delegation refused')
    return { failure: 'invalid_delegation', detail: NOT_FOR_AUTH }
  }
  log.info({ did: grant.ok.issuer }, 'authenticated by a bare delegation')
  const { issuer, expiration, cids } = grant.ok
  return { ok: { did: issuer, via: 'delegation', expiration, cids, delegation: { raw: delegation, grant: grant.ok } } }
}

/** A credential value as received: trimmed, and absent when empty or not a string. */
export function credential (value: unknown): string | undefined {
  const first = Array.isArray(value) ? value[0] as unknown : value
  if (typeof first !== 'string') return undefined
  const trimmed = first.trim()
  return trimmed === '' ? undefined : trimmed
}
