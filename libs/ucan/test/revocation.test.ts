import { describe, expect, it } from 'vitest'
import { createUcanVerifier, decodeBase64Car, generateSigner, mintDelegation, mintInvocation } from '../src/index.ts'
import { nowS } from './helpers.ts'

const oracle = await generateSigner()
const user = await generateSigner()
const root = await generateSigner()
const caps = [{ can: '*', with: 'ixo:oracle' }]
const cidOf = async (token: string) => (await decodeBase64Car(token)).cid.toString()

describe('revocation', () => {
  const revoked = new Set<string>()
  const isRevoked = async (cids: string[]) => cids.some((cid) => revoked.has(cid))
  const verifier = createUcanVerifier({ oracleDid: oracle.did(), isRevoked })

  it('refuses a delegation revoked after its verdict was cached', async () => {
    const token = await mintDelegation({ issuer: user, audience: oracle, capabilities: caps })
    expect((await verifier.verifyDelegation(token)).ok?.cids).toEqual([await cidOf(token)])
    revoked.add(await cidOf(token))
    expect((await verifier.verifyDelegation(token)).error?.reason).toBe('revoked')
  })

  it('refuses a delegation whose proof was revoked', async () => {
    const proof = await mintDelegation({ issuer: root, audience: user, capabilities: caps })
    const token = await mintDelegation({ issuer: user, audience: oracle, capabilities: caps, proofs: [proof] })
    expect((await verifier.verifyDelegation(token)).ok?.cids).toEqual([await cidOf(token), await cidOf(proof)])
    revoked.add(await cidOf(proof))
    expect((await verifier.verifyDelegation(token)).error?.reason).toBe('revoked')
  })

  it('refuses an invocation that carries a revoked delegation as proof', async () => {
    const proof = await mintDelegation({ issuer: root, audience: user, capabilities: caps, lifetimeSeconds: 3000 })
    const token = await mintInvocation({ issuer: user, audience: oracle, proofs: [proof] })
    expect((await verifier.verifyInvocation(token)).ok).toBeDefined()
    revoked.add(await cidOf(proof))
    expect((await verifier.verifyInvocation(token)).error?.reason).toBe('revoked')
  })

  it('throws rather than accepting when the revocation list cannot be read', async () => {
    const isRevoked = async () => { throw new Error('store down') }
    const failing = createUcanVerifier({ oracleDid: oracle.did(), isRevoked })
    const token = await mintDelegation({ issuer: user, audience: oracle, capabilities: caps })
    await expect(failing.verifyDelegation(token)).rejects.toThrow('store down')
  })
})

describe('delegation lifetime cap', () => {
  const year = 365 * 24 * 3600

  it.each([10, 100])('refuses a delegation living %i years by default', async (years) => {
    const verifier = createUcanVerifier({ oracleDid: oracle.did() })
    const expiration = nowS() + years * year
    const token = await mintDelegation({ issuer: user, audience: oracle, capabilities: caps, expiration })
    expect((await verifier.verifyDelegation(token)).error?.reason).toBe('lifetime_too_long')
  })

  it('accepts 30 days and counts the chain\'s earliest expiry, with a configurable cap', async () => {
    const verifier = createUcanVerifier({ oracleDid: oracle.did() })
    const lifetimeSeconds = 30 * 24 * 3600
    const month = await mintDelegation({ issuer: user, audience: oracle, capabilities: caps, lifetimeSeconds })
    expect((await verifier.verifyDelegation(month)).ok).toBeDefined()
    const shortProof = await mintDelegation({ issuer: root, audience: user, capabilities: caps, lifetimeSeconds: 3600 })
    const longTop = await mintDelegation({
      issuer: user, audience: oracle, capabilities: caps, expiration: nowS() + 100 * year, proofs: [shortProof]
    })
    expect((await verifier.verifyDelegation(longTop)).ok).toBeDefined()
    const strict = createUcanVerifier({ oracleDid: oracle.did(), maxDelegationTtlSeconds: 600 })
    expect((await strict.verifyDelegation(longTop)).error?.reason).toBe('lifetime_too_long')
  })
})
