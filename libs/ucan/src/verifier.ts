import { UCAN } from '@ucanto/core'
import type { Delegation, DID } from '@ucanto/interface'
import { Verifier } from '@ucanto/principal'
import { capability, claim, DIDResolutionError, Schema } from '@ucanto/validator'
import { decodeBase64Car, MAX_TOKEN_LENGTH } from './base64-car.ts'
import { ORACLE_AUTH_CAPABILITY } from './capabilities.ts'
import { createChainChecks } from './chain.ts'
import { refuse, type Verdict } from './errors.ts'
import { revocationOf } from './revocation-check.ts'
import { VerdictCache } from './verdict-cache.ts'
import type {
  AccountInvocation, DelegationGrant, InvocationIdentity, RevocationGrant, UcanVerifier, UcanVerifierOptions
} from './verifier-types.ts'

export type {
  AccountInvocation, DelegationGrant, InvocationIdentity, RevocationGrant, UcanVerifier, UcanVerifierOptions
}

const nowSeconds = () => Math.floor(Date.now() / 1000)
/** A capability on an account: `with` is any DID (the account), `can` one concrete ability. */
const accountCapabilityOf = (ability: string) =>
  capability({ can: ability as `${string}/${string}`, with: Schema.did() })
type Cached<T> = { value: Verdict<T>, ttlMs: number }

/**
 * Verifies invocations and delegations: ucanto checks signatures and capabilities, and this first checks what it
 * leaves out (audience, finite expiry, lifetime cap, one capability, embedded and aligned proofs).
 */
export function createUcanVerifier (options: UcanVerifierOptions): UcanVerifier {
  const {
    oracleDid,
    maxInvocationTtlSeconds = 900,
    maxDelegationTtlSeconds = 30 * 24 * 3600,
    clockSkewSeconds = 60,
    delegationCacheTtlMs = 180_000,
    refusalCacheTtlMs = 30_000,
    maxChainDepth = 8,
    maxTokenLength = MAX_TOKEN_LENGTH
  } = options
  const wanted = options.invocationCapability ?? ORACLE_AUTH_CAPABILITY
  const OracleAuth = capability({
    can: wanted.can as `${string}/${string}` | '*',
    with: Schema.literal(wanted.with as `${string}:${string}`)
  })
  const authority = options.oracleKeyDid !== undefined && options.oracleKeyDid !== oracleDid
    ? Verifier.parse(options.oracleKeyDid as DID).withDID(oracleDid as DID)
    : Verifier.parse(oracleDid as DID)
  const cache = new VerdictCache<Verdict<unknown>>(options.cacheSize ?? 10_000)
  const chain = createChainChecks({ ...options, maxChainDepth })
  const { keysOf, cidsOf } = chain
  const accountCapabilities = new Map<string, ReturnType<typeof accountCapabilityOf>>()
  const accountCapability = (ability: string) => {
    let parser = accountCapabilities.get(ability)
    if (parser === undefined) accountCapabilities.set(ability, parser = accountCapabilityOf(ability))
    return parser
  }

  // Refusals that may turn into a yes soon (not valid yet, a resolver hiccup) or that cost nothing
  // to repeat (junk that does not decode) are not remembered; the rest are, briefly.
  const UNCACHED = new Set(['not_yet_valid', 'unresolvable_did', 'malformed'])
  const refusal = <T>(verdict: Verdict<T>): Cached<T> =>
    ({ value: verdict, ttlMs: UNCACHED.has(verdict.error?.reason ?? '') ? 0 : refusalCacheTtlMs })

  /** Decoding and the checks ucanto leaves out, common to both kinds of invocation. */
  async function invocationPrelude (token: string): Promise<Verdict<Delegation>> {
    let invocation: Delegation
    try {
      invocation = await decodeBase64Car(token, maxTokenLength)
    } catch (error) {
      return refuse('malformed', 'invocation is not a base64 UCAN CAR', error)
    }
    const expiration = invocation.expiration
    if (invocation.audience.did() !== oracleDid) {
      return refuse('wrong_audience', 'invocation is addressed to another principal')
    }
    if (invocation.capabilities.length !== 1) {
      return refuse('capability_count', 'an invocation carries exactly one capability')
    }
    if (!Number.isFinite(expiration)) return refuse('no_expiry', 'invocation never expires')
    if (expiration - nowSeconds() > maxInvocationTtlSeconds + clockSkewSeconds) {
      return refuse('lifetime_too_long', `invocation lives longer than ${maxInvocationTtlSeconds} s`)
    }
    if (UCAN.isExpired(invocation.data)) return refuse('expired', 'invocation has expired')
    if (UCAN.isTooEarly(invocation.data)) return refuse('not_yet_valid', 'invocation is not valid yet')
    return { ok: invocation }
  }

  /** ucanto's DID-key hook, noting whether a key was missing or the resolver failed. */
  function didKeyHook (state: { transient: boolean, unresolved: boolean }) {
    return async (did: `did:${string}:${string}`) => {
      try {
        const keys = await keysOf(did)
        if (keys.length > 0) return { ok: keys as Array<`did:key:${string}`> }
        state.unresolved = true
        return { error: new DIDResolutionError(did) }
      } catch {
        state.transient = state.unresolved = true
        return { error: new DIDResolutionError(did) }
      }
    }
  }

  /**
   * ucanto's part of an invocation check (signatures, capability matching, DID keys): the refusal to
   * hand back, or undefined when the invocation holds.
   */
  async function claimRefusal<T> (
    parser: typeof OracleAuth | ReturnType<typeof accountCapability>,
    invocation: Delegation,
    extra: { canIssue?: () => boolean } = {}
  ): Promise<Cached<T> | undefined> {
    const resolution = { transient: false, unresolved: false }
    try {
      const result = await claim(parser, [invocation], {
        authority,
        principal: Verifier,
        ...extra,
        validateAuthorization: () => ({ ok: {} }),
        resolveDIDKey: didKeyHook(resolution)
      })
      if (result.error === undefined) return undefined
      const verdict = refuse(resolution.unresolved ? 'unresolvable_did' : 'unauthorized', result.error.message)
      return { value: verdict, ttlMs: resolution.transient ? 0 : refusal(verdict).ttlMs }
    } catch (error) {
      // A signature whose R is not a curve point makes the verifier throw rather than answer false.
      return refusal(refuse('invalid_signature', 'invocation signature could not be verified', error))
    }
  }

  /** The chain under `token` checked whole: its earliest expiry, or the refusal to hand back. */
  async function chainOf<T> (token: Delegation): Promise<{ refused: Cached<T> } | { expiration: number }> {
    let checked: Verdict<{ expiration: number }>
    try {
      checked = await chain.checkChain(token)
    } catch (error) {
      return { refused: { value: refuse('unresolvable_did', 'a signing key could not be resolved', error), ttlMs: 0 } }
    }
    return checked.error !== undefined ? { refused: refusal<T>({ error: checked.error }) } : checked.ok
  }

  async function checkInvocation (token: string): Promise<Cached<InvocationIdentity>> {
    const decoded = await invocationPrelude(token)
    if (decoded.error !== undefined) return refusal<InvocationIdentity>(decoded)
    const invocation = decoded.ok
    const expiration = invocation.expiration
    // The auth invocation is self-issued: its signer is the root of its own authority.
    const refused = await claimRefusal<InvocationIdentity>(OracleAuth, invocation, { canIssue: () => true })
    if (refused !== undefined) return refused
    const identity = {
      did: invocation.issuer.did(),
      expiration,
      cid: invocation.cid.toString(),
      cids: cidsOf(invocation)
    }
    return { value: { ok: identity }, ttlMs: expiration * 1000 - Date.now() }
  }

  async function checkDelegation (token: string): Promise<Cached<DelegationGrant>> {
    let delegation: Delegation
    try {
      delegation = await decodeBase64Car(token, maxTokenLength)
    } catch (error) {
      return refusal(refuse('malformed', 'delegation is not a base64 UCAN CAR', error))
    }
    if (delegation.audience.did() !== oracleDid) {
      return refusal(refuse('wrong_audience', 'delegation is addressed to another principal'))
    }
    const checked = await chainOf<DelegationGrant>(delegation)
    if ('refused' in checked) return checked.refused
    if (checked.expiration - nowSeconds() > maxDelegationTtlSeconds + clockSkewSeconds) {
      return refusal(refuse('lifetime_too_long', `delegation lives longer than ${maxDelegationTtlSeconds} s`))
    }
    const grant: DelegationGrant = {
      issuer: delegation.issuer.did(),
      audience: delegation.audience.did(),
      expiration: checked.expiration,
      capabilities: delegation.capabilities.map((c) => ({ can: c.can, with: c.with })),
      cid: delegation.cid.toString(),
      cids: cidsOf(delegation)
    }
    return { value: { ok: grant }, ttlMs: Math.min(grant.expiration * 1000 - Date.now(), delegationCacheTtlMs) }
  }

  /**
   * Checked like a delegation, then ucanto decides the grant; its default `canIssue` (`with` equals the issuer)
   * is what roots the chain at the account.
   */
  async function checkAccountInvocation (token: string, ability: string): Promise<Cached<AccountInvocation>> {
    const decoded = await invocationPrelude(token)
    if (decoded.error !== undefined) return refusal<AccountInvocation>(decoded)
    const invocation = decoded.ok
    const checked = await chainOf<AccountInvocation>(invocation)
    if ('refused' in checked) return checked.refused
    const [wanted] = invocation.capabilities
    if (wanted === undefined || wanted.can !== ability) {
      return refusal(refuse('wrong_ability', `the invocation is not for ${ability}`))
    }
    if (!/^did:[a-z0-9]+:./.test(wanted.with)) {
      return refusal(refuse('unauthorized', 'the invocation\'s resource is not an account DID'))
    }
    const refused = await claimRefusal<AccountInvocation>(accountCapability(ability), invocation)
    if (refused !== undefined) return refused
    const found: AccountInvocation = {
      account: wanted.with,
      invoker: invocation.issuer.did(),
      ability,
      expiration: checked.expiration,
      cid: invocation.cid.toString(),
      cids: cidsOf(invocation)
    }
    return { value: { ok: found }, ttlMs: found.expiration * 1000 - Date.now() }
  }

  async function checkRevocation (token: string): Promise<Verdict<RevocationGrant>> {
    const decoded = await invocationPrelude(token)
    return decoded.error !== undefined ? decoded : await revocationOf(decoded.ok, chain)
  }

  // The revocation check runs after the cache, on every call: a cached "yes" never outlives a revocation.
  async function cached <T extends { cids: string[] }> (
    kind: string,
    token: string,
    check: (token: string) => Promise<Cached<T>>
  ): Promise<Verdict<T>> {
    const verdict = await cache.through(VerdictCache.key(kind, token), async () => await check(token)) as Verdict<T>
    if (verdict.ok === undefined || options.isRevoked === undefined) return verdict
    if (!await options.isRevoked(verdict.ok.cids)) return verdict
    return refuse('revoked', `the ${kind} or a proof in it has been revoked`)
  }

  return {
    oracleDid,
    verifyInvocation: async (token) => await cached('invocation', token, checkInvocation),
    verifyDelegation: async (token) => await cached('delegation', token, checkDelegation),
    verifyAccountInvocation: async (token, ability) =>
      await cached(`account:${ability}`, token, async (t) => await checkAccountInvocation(t, ability)),
    verifyRevocation: checkRevocation
  }
}
