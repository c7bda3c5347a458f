import type { DidKeyResolver } from './resolvers.ts'
import type { Verdict } from './errors.ts'

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
