import { UCAN, isDelegation, isLink } from '@ucanto/core'
import type { Delegation, DID, Verifier as VerifierView } from '@ucanto/interface'
import { Verifier } from '@ucanto/principal'
import { capability, claim, DIDResolutionError, Schema } from '@ucanto/validator'
import { decodeBase64Car, MAX_TOKEN_LENGTH } from './base64-car.ts'
import { ORACLE_AUTH_CAPABILITY } from './capabilities.ts'
import { REVOKE_ABILITY } from './mint.ts'
import { refuse, type Verdict } from './errors.ts'
import type { DidKeyResolver } from './resolvers.ts'
import { VerdictCache } from './verdict-cache.ts'

export interface UcanVerifierOptions {
  /** This oracle's DID: every accepted token must be addressed to exactly this string. */
  oracleDid: string
  /** did:key of the oracle's signing key when `oracleDid` is not itself a did:key (a did:ixo oracle). */
  oracleKeyDid?: string
  /** Keys of non-did:key principals (did:ixo users); without it only did:key issuers verify. */
  resolveDidKey?: DidKeyResolver
  /** The one capability an auth invocation carries. Default `{ can: '*', with: 'ixo:oracle' }`. */
  invocationCapability?: { can: string, with: string }
  /** Longest accepted invocation life, from now to its expiry (default 900 s). */
  maxInvocationTtlSeconds?: number
  /** Clock skew allowed on top of the lifetime cap (default 60 s); ucanto itself has no leeway. */
  clockSkewSeconds?: number
  /** Cap on how long a delegation verdict is reused (default 3 min), so revocations land soon. */
  delegationCacheTtlMs?: number
  /** How long a refusal is remembered (default 30 s), so a flood of one bad token costs one check. */
  refusalCacheTtlMs?: number
  cacheSize?: number
  /** Longest accepted remaining life of a delegation's chain (default 30 days), wherever it is presented. */
  maxDelegationTtlSeconds?: number
  /** Whether any of a token's CIDs was revoked; asked on every call, cache hits too. A throw fails the check. */
  isRevoked?: (cids: string[]) => Promise<boolean>
  /** Longest delegation chain followed (default 8). */
  maxChainDepth?: number
  maxTokenLength?: number
}

/** Who is calling, proven by a valid invocation. */
export interface InvocationIdentity {
  did: string
  expiration: number
  cid: string
  /** CIDs of the invocation and of every proof it carries (the revocation check's input). */
  cids: string[]
}

/** What a valid delegation to this oracle grants; `expiration` is the earliest in its chain. */
export interface DelegationGrant {
  issuer: string
  audience: string
  expiration: number
  capabilities: Array<{ can: string, with: string }>
  cid: string
  /** CIDs of the delegation and of every proof in its chain, its own first. */
  cids: string[]
}

/** An invocation acting for an account (ucan.md §9): `with` is its DID, and the proof chain is rooted there. */
export interface AccountInvocation {
  /** The `with` DID, which is also the root issuer of the chain: who the call acts for. */
  account: string
  /** The invocation's signer: the account itself, or a service holding the account's delegation. */
  invoker: string
  ability: string
  expiration: number
  cid: string
  cids: string[]
}

/** A valid revocation: `revoker` may revoke the UCAN `cid`, which is of no use after `expiration`. */
export interface RevocationGrant {
  revoker: string
  cid: string
  /** The revoked UCAN's own expiry: the record need not be kept longer. */
  expiration: number
}

export interface UcanVerifier {
  readonly oracleDid: string
  verifyInvocation: (token: string) => Promise<Verdict<InvocationIdentity>>
  verifyDelegation: (token: string) => Promise<Verdict<DelegationGrant>>
  /**
   * An invocation of `ability` on an account's DID; a sound token that does not grant it through a chain rooted
   * at that DID is `wrong_ability` or `unauthorized`, other refusals as `verifyDelegation`'s.
   */
  verifyAccountInvocation: (token: string, ability: string) => Promise<Verdict<AccountInvocation>>
  /**
   * A `ucan/revoke` invocation addressed to this service: self-issued (`with` = its signer), naming the
   * revoked UCAN's CID in `nb.ucan` and embedding that UCAN as proof. The signer must be an issuer in
   * the revoked UCAN's chain or its audience (a delegate renouncing what it was given). Never cached.
   */
  verifyRevocation: (token: string) => Promise<Verdict<RevocationGrant>>
}

const nowSeconds = () => Math.floor(Date.now() / 1000)
/** A capability on an account: `with` is any DID (the account), `can` one concrete ability. */
const accountCapabilityOf = (ability: string) =>
  capability({ can: ability as `${string}/${string}`, with: Schema.did() })
type AnyDid = DID
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
    ? Verifier.parse(options.oracleKeyDid as AnyDid).withDID(oracleDid as AnyDid)
    : Verifier.parse(oracleDid as AnyDid)
  const cache = new VerdictCache<Verdict<unknown>>(options.cacheSize ?? 10_000)
  const accountCapabilities = new Map<string, ReturnType<typeof accountCapabilityOf>>()
  const accountCapability = (ability: string) => {
    let parser = accountCapabilities.get(ability)
    if (parser === undefined) accountCapabilities.set(ability, parser = accountCapabilityOf(ability))
    return parser
  }

  /** did:key strings that may have signed for `did`; throws when the resolver itself fails. */
  async function keysOf (did: string): Promise<string[]> {
    if (did.startsWith('did:key:')) return [did]
    if (did === oracleDid && options.oracleKeyDid !== undefined) return [options.oracleKeyDid]
    if (options.resolveDidKey === undefined) return []
    return await options.resolveDidKey(did)
  }

  async function verifiersOf (did: string): Promise<VerifierView[]> {
    const keys = await keysOf(did)
    return keys.map((key) => did.startsWith('did:key:')
      ? Verifier.parse(key as AnyDid)
      : Verifier.parse(key as AnyDid).withDID(did as AnyDid))
  }

  // Refusals that may turn into a yes soon (not valid yet, a resolver hiccup) or that cost nothing
  // to repeat (junk that does not decode) are not remembered; the rest are, briefly.
  const UNCACHED = new Set(['not_yet_valid', 'unresolvable_did', 'malformed'])
  const refusal = <T>(verdict: Verdict<T>): Cached<T> =>
    ({ value: verdict, ttlMs: UNCACHED.has(verdict.error?.reason ?? '') ? 0 : refusalCacheTtlMs })

  /** CIDs of a token and of every proof under it, linked-only ones included. */
  function cidsOf (token: Delegation, depth = 0): string[] {
    const cids = new Set([token.cid.toString()])
    if (depth < maxChainDepth) {
      for (const proof of token.proofs) {
        for (const cid of isDelegation(proof) ? cidsOf(proof, depth + 1) : [String(proof)]) cids.add(cid)
      }
    }
    return [...cids]
  }

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
    let chain: Verdict<{ expiration: number }>
    try {
      chain = await checkChain(token, 0)
    } catch (error) {
      return { refused: { value: refuse('unresolvable_did', 'a signing key could not be resolved', error), ttlMs: 0 } }
    }
    return chain.error !== undefined ? { refused: refusal<T>({ error: chain.error }) } : chain.ok
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

  /** Whether one of the issuer's keys signed the token; throws when its keys cannot be resolved. */
  async function checkSignature (token: Delegation): Promise<Verdict<true>> {
    const issuer = token.issuer.did()
    const verifiers = await verifiersOf(issuer)
    if (verifiers.length === 0) return refuse('unresolvable_did', `no signing key known for ${issuer}`)
    for (const verifier of verifiers) {
      try {
        if (await UCAN.verifySignature(token.data, verifier)) return { ok: true }
      } catch {
        // Not a valid curve point: this key did not sign it.
      }
    }
    return refuse('invalid_signature', 'signature does not verify')
  }

  /** Time, signature and alignment of a delegation and of every proof under it, recursively. */
  async function checkChain (delegation: Delegation, depth: number): Promise<Verdict<{ expiration: number }>> {
    if (depth > maxChainDepth) return refuse('chain_too_deep', `delegation chain is deeper than ${maxChainDepth}`)
    if (!Number.isFinite(delegation.expiration)) return refuse('no_expiry', 'delegation never expires')
    if (UCAN.isExpired(delegation.data)) return refuse('expired', 'delegation has expired')
    if (UCAN.isTooEarly(delegation.data)) return refuse('not_yet_valid', 'delegation is not valid yet')
    const issuer = delegation.issuer.did()
    const signature = await checkSignature(delegation)
    if (signature.error !== undefined) return signature
    let expiration = delegation.expiration
    for (const proof of delegation.proofs) {
      if (!isDelegation(proof)) return refuse('proof_not_embedded', 'a proof is linked but not embedded')
      if (proof.audience.did() !== issuer) {
        return refuse('chain_misaligned', 'a proof is not addressed to the delegation issuer')
      }
      const verdict = await checkChain(proof, depth + 1)
      if (verdict.error !== undefined) return verdict
      expiration = Math.min(expiration, verdict.ok.expiration)
    }
    return { ok: { expiration } }
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
    const chain = await chainOf<DelegationGrant>(delegation)
    if ('refused' in chain) return chain.refused
    if (chain.expiration - nowSeconds() > maxDelegationTtlSeconds + clockSkewSeconds) {
      return refusal(refuse('lifetime_too_long', `delegation lives longer than ${maxDelegationTtlSeconds} s`))
    }
    const grant: DelegationGrant = {
      issuer: delegation.issuer.did(),
      audience: delegation.audience.did(),
      expiration: chain.expiration,
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
    const chain = await chainOf<AccountInvocation>(invocation)
    if ('refused' in chain) return chain.refused
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
      expiration: chain.expiration,
      cid: invocation.cid.toString(),
      cids: cidsOf(invocation)
    }
    return { value: { ok: found }, ttlMs: found.expiration * 1000 - Date.now() }
  }

  /**
   * Issuers of a UCAN and of every proof under it. Each embedded block is re-hashed against the CID
   * that links it (CAR decoding does not), so a forged block cannot name another issuer.
   */
  async function issuersOf (token: Delegation, cid: string, depth = 0): Promise<Set<string> | undefined> {
    if (`${await UCAN.link(token.data)}` !== cid) return undefined
    const issuers = new Set<string>([token.issuer.did()])
    if (depth >= maxChainDepth) return issuers
    for (const proof of token.proofs) {
      if (!isDelegation(proof)) continue
      const below = await issuersOf(proof, proof.cid.toString(), depth + 1)
      if (below === undefined) return undefined
      for (const issuer of below) issuers.add(issuer)
    }
    return issuers
  }

  async function checkRevocation (token: string): Promise<Verdict<RevocationGrant>> {
    const decoded = await invocationPrelude(token)
    if (decoded.error !== undefined) return decoded
    const invocation = decoded.ok
    const [wanted] = invocation.capabilities
    const revoker = invocation.issuer.did()
    if (wanted === undefined || wanted.can !== REVOKE_ABILITY) {
      return refuse('wrong_ability', `a revocation is a ${REVOKE_ABILITY} invocation`)
    }
    if (wanted.with !== revoker) return refuse('unauthorized', 'a revocation names its own signer as resource')
    const target = (wanted as { nb?: { ucan?: unknown } }).nb?.ucan
    if (!isLink(target as never)) return refuse('malformed', 'a revocation names the revoked UCAN\'s CID in nb.ucan')
    const cid = String(target)
    try {
      const signature = await checkSignature(invocation)
      if (signature.error !== undefined) return signature
    } catch (error) {
      return refuse('unresolvable_did', 'a signing key could not be resolved', error)
    }
    const revoked = invocation.proofs.find((proof) => isDelegation(proof) && proof.cid.toString() === cid)
    if (revoked === undefined || !isDelegation(revoked)) {
      return refuse('proof_not_embedded', 'the revoked UCAN is not embedded in the revocation')
    }
    const issuers = await issuersOf(revoked, cid)
    if (issuers === undefined) return refuse('malformed', 'an embedded block does not match its CID')
    if (!issuers.has(revoker) && revoked.audience.did() !== revoker) {
      return refuse('unauthorized', 'only an issuer in the revoked UCAN\'s chain, or its audience, may revoke it')
    }
    if (!Number.isFinite(revoked.expiration)) return refuse('no_expiry', 'a UCAN that never expires is never accepted')
    return { ok: { revoker, cid, expiration: revoked.expiration } }
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
