import { UCAN, isDelegation } from '@ucanto/core'
import type { Delegation, DID, Verifier as VerifierView } from '@ucanto/interface'
import { Verifier } from '@ucanto/principal'
import { refuse, type Verdict } from './errors.ts'
import type { UcanVerifierOptions } from './verifier-types.ts'

export type ChainOptions = Pick<UcanVerifierOptions, 'oracleDid' | 'oracleKeyDid' | 'resolveDidKey'> &
  { maxChainDepth: number }

export type ChainChecks = ReturnType<typeof createChainChecks>

/** Signatures, times and alignment of a UCAN and the proofs under it: what ucanto's claim does not check. */
export function createChainChecks ({ oracleDid, oracleKeyDid, resolveDidKey, maxChainDepth }: ChainOptions) {
  /** did:key strings that may have signed for `did`; throws when the resolver itself fails. */
  async function keysOf (did: string): Promise<string[]> {
    if (did.startsWith('did:key:')) return [did]
    if (did === oracleDid && oracleKeyDid !== undefined) return [oracleKeyDid]
    if (resolveDidKey === undefined) return []
    return await resolveDidKey(did)
  }

  async function verifiersOf (did: string): Promise<VerifierView[]> {
    const keys = await keysOf(did)
    return keys.map((key) => did.startsWith('did:key:')
      ? Verifier.parse(key as DID)
      : Verifier.parse(key as DID).withDID(did as DID))
  }

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
  async function checkChain (delegation: Delegation, depth = 0): Promise<Verdict<{ expiration: number }>> {
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

  return { keysOf, cidsOf, checkSignature, checkChain, issuersOf }
}
