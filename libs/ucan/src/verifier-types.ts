import type { DidKeyResolver } from './resolvers.ts'
import type { Verdict } from './errors.ts'

export interface UcanVerifierOptions {
  oracleDid: string
  oracleKeyDid?: string
  resolveDidKey?: DidKeyResolver
  invocationCapability?: { can: string, with: string }
  maxInvocationTtlSeconds?: number
  /** Default 60 s; ucanto itself has no leeway. */
  clockSkewSeconds?: number
  /** Default 3 min, so revocations land soon. */
  delegationCacheTtlMs?: number
  /** Default 30 s, so a flood of one bad token costs one check. */
  refusalCacheTtlMs?: number
  cacheSize?: number
  maxDelegationTtlSeconds?: number
  /** Asked on every call, cache hits too; a throw fails the check. */
  isRevoked?: (cids: string[]) => Promise<boolean>
  maxChainDepth?: number
  maxTokenLength?: number
}

export interface InvocationIdentity {
  did: string
  expiration: number
  cid: string
  cids: string[]
}

/** `expiration` is the earliest in its chain. */
export interface DelegationGrant {
  issuer: string
  audience: string
  expiration: number
  capabilities: Array<{ can: string, with: string }>
  cid: string
  cids: string[]
}

/** ucan.md §9: `with` is the account's DID, and the proof chain is rooted there. */
export interface AccountInvocation {
  account: string
  invoker: string
  ability: string
  expiration: number
  cid: string
  cids: string[]
}

export interface RevocationGrant {
  revoker: string
  cid: string
  /** The revocation record need not be kept longer. */
  expiration: number
}

export interface UcanVerifier {
  readonly oracleDid: string
  verifyInvocation: (token: string) => Promise<Verdict<InvocationIdentity>>
  verifyDelegation: (token: string) => Promise<Verdict<DelegationGrant>>
  verifyAccountInvocation: (token: string, ability: string) => Promise<Verdict<AccountInvocation>>
  /** The signer must be an issuer in the revoked UCAN's chain or its audience; never cached. */
  verifyRevocation: (token: string) => Promise<Verdict<RevocationGrant>>
}
