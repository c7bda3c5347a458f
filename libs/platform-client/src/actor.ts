import { covers, decodeBase64Car, mintInvocation } from '@impact/ucan'
import type { Delegation, Signer } from '@ucanto/interface'
import { PlatformClientError, type AuthorisationReason } from './errors.ts'

/**
 * `proof: null` makes the signer act for itself; an undefined proof is a user who has not authorised it yet,
 * so every call asks for authorisation.
 */
export interface Actor {
  signer: Signer
  /** Decoded or as the stored base64 CAR. */
  proof: Delegation | string | null | undefined
  /** Default: the proof's issuer, or the signer. */
  account?: string | undefined
}

const nowSeconds = () => Math.floor(Date.now() / 1000)

const MESSAGES: Record<AuthorisationReason, (ability: string, signer: string) => string> = {
  no_delegation: (ability, signer) => `No delegation from the user: authorise ${signer} for ${ability}`,
  invalid: (ability, signer) => `The user's delegation cannot be read: authorise ${signer} for ${ability} again`,
  not_granted: (ability, signer) => `The user's delegation does not grant ${ability}: authorise ${signer} for ` +
    ability,
  expired: (ability, signer) => `The user's delegation has expired: authorise ${signer} for ${ability} again`,
  wrong_audience: (ability, signer) => `The delegation is addressed to another principal: authorise ${signer} for ` +
    ability
}

export const authorisationRequired = (reason: AuthorisationReason, ability: string, signer: string) =>
  new PlatformClientError('AUTHORISATION_REQUIRED', MESSAGES[reason](ability, signer), 403, { ability, reason })

/** Checks the delegation locally first (`covers`), so what it does not grant is never sent (ucan.md §9). */
export function createInvoker (actor: Actor, lifetimeSeconds: number) {
  const signerDid = actor.signer.did()
  let decoded: Promise<Delegation | null | undefined> | undefined
  const proofOf = async () => {
    const { proof } = actor
    decoded ??= typeof proof === 'string' ? decodeBase64Car(proof) : Promise.resolve(proof)
    return await decoded
  }

  async function authorise (ability: string): Promise<{ account: string, proof: Delegation | null }> {
    let proof: Delegation | null | undefined
    try {
      proof = await proofOf()
    } catch {
      throw authorisationRequired('invalid', ability, signerDid)
    }
    if (proof === undefined) throw authorisationRequired('no_delegation', ability, signerDid)
    if (proof === null) {
      if (actor.account !== undefined && actor.account !== signerDid) {
        throw authorisationRequired('no_delegation', ability, signerDid)
      }
      return { account: signerDid, proof }
    }
    const account = actor.account ?? proof.issuer.did()
    if (proof.audience.did() !== signerDid) throw authorisationRequired('wrong_audience', ability, signerDid)
    if (proof.expiration <= nowSeconds()) throw authorisationRequired('expired', ability, signerDid)
    const granted = proof.capabilities.map((c) => ({ can: c.can, with: c.with }))
    if (!covers(granted, { can: ability, with: account })) {
      throw authorisationRequired('not_granted', ability, signerDid)
    }
    return { account, proof }
  }

  return {
    signerDid,
    authorise,
    async invoke (ability: string, audience: string, granted: { account: string, proof: Delegation | null }) {
      const { account, proof } = granted
      return await mintInvocation({
        issuer: actor.signer,
        audience,
        capability: { can: ability, with: account },
        expiration: Math.min(nowSeconds() + lifetimeSeconds, proof?.expiration ?? Infinity),
        proofs: proof !== null ? [proof] : []
      })
    },
    /** For a revocation that names none. */
    proof: proofOf
  }
}

export type Invoker = ReturnType<typeof createInvoker>
