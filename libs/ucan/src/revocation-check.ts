import { isDelegation, isLink } from '@ucanto/core'
import type { Delegation } from '@ucanto/interface'
import type { ChainChecks } from './chain.ts'
import { refuse, type Verdict } from './errors.ts'
import { REVOKE_ABILITY } from './mint.ts'
import type { RevocationGrant } from './verifier-types.ts'

/** A `ucan/revoke` invocation already addressed and timed right: who revokes what, and until when. */
export async function revocationOf (invocation: Delegation, chain: ChainChecks): Promise<Verdict<RevocationGrant>> {
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
    const signature = await chain.checkSignature(invocation)
    if (signature.error !== undefined) return signature
  } catch (error) {
    return refuse('unresolvable_did', 'a signing key could not be resolved', error)
  }
  const revoked = invocation.proofs.find((proof) => isDelegation(proof) && proof.cid.toString() === cid)
  if (revoked === undefined || !isDelegation(revoked)) {
    return refuse('proof_not_embedded', 'the revoked UCAN is not embedded in the revocation')
  }
  const issuers = await chain.issuersOf(revoked, cid)
  if (issuers === undefined) return refuse('malformed', 'an embedded block does not match its CID')
  if (!issuers.has(revoker) && revoked.audience.did() !== revoker) {
    return refuse('unauthorized', 'only an issuer in the revoked UCAN\'s chain, or its audience, may revoke it')
  }
  if (!Number.isFinite(revoked.expiration)) return refuse('no_expiry', 'a UCAN that never expires is never accepted')
  return { ok: { revoker, cid, expiration: revoked.expiration } }
}
