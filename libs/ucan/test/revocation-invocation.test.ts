import { describe, expect, it } from 'vitest'
import {
  createUcanVerifier, decodeBase64Car, generateSigner, mintDelegation, mintInvocation, mintRevocation
} from '../src/index.ts'
import { nowS, tamperSignature } from './helpers.ts'

const registry = await generateSigner()
const [user, gateway, oracle, stranger] =
  [await generateSigner(), await generateSigner(), await generateSigner(), await generateSigner()]
const verifier = createUcanVerifier({ oracleDid: registry.did() })
const domains = (account: string) => [{ can: 'domain/*', with: account }]
const cidOf = async (token: string) => (await decodeBase64Car(token)).cid.toString()

/** user → gateway → oracle, the second hop carrying the first as proof. */
async function chain () {
  const first = await mintDelegation({ issuer: user, audience: gateway, capabilities: domains(user.did()) })
  const second = await mintDelegation({
    issuer: gateway, audience: oracle, capabilities: domains(user.did()), proofs: [first], expiration: nowS() + 3600
  })
  return { first, second }
}

describe('verifyRevocation', () => {
  it('accepts the issuer revoking its delegation, keeping the record until the delegation expires', async () => {
    const delegation = await mintDelegation({
      issuer: user, audience: oracle, capabilities: domains(user.did()), expiration: nowS() + 600
    })
    const token = await mintRevocation({ issuer: user, audience: registry, delegation })
    expect((await verifier.verifyRevocation(token)).ok).toEqual({
      revoker: user.did(), cid: await cidOf(delegation), expiration: (await decodeBase64Car(delegation)).expiration
    })
  })

  it('accepts an issuer further up the chain, and the audience renouncing it', async () => {
    const { second } = await chain()
    for (const issuer of [user, gateway, oracle]) {
      const token = await mintRevocation({ issuer, audience: registry, delegation: second })
      const verdict = await verifier.verifyRevocation(token)
      expect(verdict.ok?.revoker).toBe(issuer.did())
    }
  })

  it('refuses a stranger, another audience, a forged signature and an expired revocation', async () => {
    const { second } = await chain()
    const revoke = async (options: { issuer?: typeof user, audience?: string } = {}) => await mintRevocation({
      issuer: options.issuer ?? user, audience: options.audience ?? registry.did(), delegation: second
    })
    const reasons = async (token: string) => (await verifier.verifyRevocation(token)).error?.reason
    expect(await reasons(await revoke({ issuer: stranger }))).toBe('unauthorized')
    expect(await reasons(await revoke({ audience: stranger.did() }))).toBe('wrong_audience')
    expect(await reasons(await tamperSignature(await revoke(), (sig) => { sig[40] = (sig[40] ?? 0) ^ 1 })))
      .toBe('invalid_signature')
    const expired = await mintRevocation({ issuer: user, audience: registry, delegation: second, lifetimeSeconds: -60 })
    expect(await reasons(expired)).toBe('expired')
  })

  it('refuses another ability, a resource other than the signer and a revocation without the UCAN', async () => {
    const { first } = await chain()
    const cid = (await decodeBase64Car(first)).cid
    const mint = async (capability: { can: string, with: string, nb?: Record<string, unknown> }, proofs = [first]) =>
      await mintInvocation({ issuer: user, audience: registry, capability, proofs })
    const reasons = async (token: string) => (await verifier.verifyRevocation(token)).error?.reason
    expect(await reasons(await mint({ can: 'domain/create', with: user.did() }))).toBe('wrong_ability')
    expect(await reasons(await mint({ can: 'ucan/revoke', with: gateway.did(), nb: { ucan: cid } })))
      .toBe('unauthorized')
    expect(await reasons(await mint({ can: 'ucan/revoke', with: user.did(), nb: { ucan: cid } }, [])))
      .toBe('proof_not_embedded')
    expect(await reasons(await mint({ can: 'ucan/revoke', with: user.did(), nb: { ucan: 'not a link' } })))
      .toBe('malformed')
  })
})
