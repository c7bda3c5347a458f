import { describe, expect, it } from 'vitest'
import { delegate } from '@ucanto/core'
import { createUcanVerifier, decodeBase64Car, encodeBase64Car, generateSigner, mintDelegation } from '../src/index.ts'
import { nowS, tamperSignature } from './helpers.ts'

const oracle = await generateSigner()
const user = await generateSigner()
const root = await generateSigner()
const verifier = createUcanVerifier({ oracleDid: oracle.did() })
const caps = [{ can: '*', with: 'ixo:oracle' }, { can: 'memory/*', with: 'ixo:memory' }]
const reasonOf = async (token: string) => (await verifier.verifyDelegation(token)).error?.reason

describe('verifyDelegation', () => {
  it('accepts a valid user-to-oracle delegation and reports what it grants', async () => {
    const expiration = nowS() + 3600
    const verdict = await verifier.verifyDelegation(
      await mintDelegation({ issuer: user, audience: oracle, capabilities: caps, expiration })
    )
    expect(verdict.ok).toMatchObject({ issuer: user.did(), audience: oracle.did(), expiration, capabilities: caps })
  })

  it('follows a chain and takes the earliest expiry in it', async () => {
    const rootExpiry = nowS() + 600
    const proof = await mintDelegation({ issuer: root, audience: user, capabilities: caps, expiration: rootExpiry })
    const token = await mintDelegation({
      issuer: user,
      audience: oracle,
      capabilities: caps,
      expiration: nowS() + 3600,
      proofs: [proof]
    })
    expect((await verifier.verifyDelegation(token)).ok).toMatchObject({ issuer: user.did(), expiration: rootExpiry })
  })

  it.each([
    [
      'expired',
      async () => await mintDelegation({ issuer: user, audience: oracle, capabilities: caps, expiration: nowS() - 60 }),
      'expired'
    ],
    [
      'addressed to another oracle',
      async () => await mintDelegation({ issuer: user, audience: root, capabilities: caps }),
      'wrong_audience'
    ],
    [
      'not valid yet',
      async () => await mintDelegation({ issuer: user, audience: oracle, capabilities: caps, notBefore: nowS() + 120 }),
      'not_yet_valid'
    ],
    [
      'without expiry',
      async () => await mintDelegation({ issuer: user, audience: oracle, capabilities: caps, expiration: Infinity }),
      'no_expiry'
    ],
    [
      'forged',
      async () => await mintDelegation({ issuer: root.withDID(user.did()), audience: oracle, capabilities: caps }),
      'invalid_signature'
    ],
    [
      'with an expired proof',
      async () =>
        await mintDelegation({
          issuer: user,
          audience: oracle,
          capabilities: caps,
          proofs: [await mintDelegation({ issuer: root, audience: user, capabilities: caps, expiration: nowS() - 5 })]
        }),
      'expired'
    ],
    [
      'with a misaligned proof',
      async () =>
        await mintDelegation({
          issuer: user,
          audience: oracle,
          capabilities: caps,
          proofs: [await mintDelegation({ issuer: root, audience: oracle, capabilities: caps })]
        }),
      'chain_misaligned'
    ],
    [
      'with a forged proof',
      async () =>
        await mintDelegation({
          issuer: user,
          audience: oracle,
          capabilities: caps,
          proofs: [await mintDelegation({ issuer: oracle.withDID(root.did()), audience: user, capabilities: caps })]
        }),
      'invalid_signature'
    ]
  ])('refuses a delegation %s', async (_name, mint, reason) => {
    expect(await reasonOf(await mint())).toBe(reason)
  })

  it('refuses a tampered signature', async () => {
    const token = await tamperSignature(
      await mintDelegation({ issuer: user, audience: oracle, capabilities: caps }),
      (s) => {
        s[10] = (s[10] ?? 0) ^ 0x80
      }
    )
    expect(await reasonOf(token)).toBe('invalid_signature')
  })

  it('refuses garbage', async () => {
    expect(await reasonOf('Zm9vYmFy')).toBe('malformed')
  })

  it('refuses a proof that is linked but not embedded', async () => {
    const proof = await decodeBase64Car(await mintDelegation({ issuer: root, audience: user, capabilities: caps }))
    const delegation = await delegate({
      issuer: user,
      audience: oracle,
      capabilities: [{ can: '*', with: 'ixo:oracle' }],
      expiration: nowS() + 600,
      proofs: [proof]
    })
    // Archive without the proof's blocks: only its CID stays in `prf`.
    const bare = await delegate({
      issuer: user,
      audience: oracle,
      capabilities: [{ can: '*', with: 'ixo:oracle' }],
      expiration: nowS() + 600,
      proofs: [proof.cid as never]
    })
    expect((await verifier.verifyDelegation(await encodeBase64Car(delegation))).ok).toBeDefined()
    expect(await reasonOf(await encodeBase64Car(bare))).toBe('proof_not_embedded')
  })

  it('refuses a chain deeper than the limit', async () => {
    const shallow = createUcanVerifier({ oracleDid: oracle.did(), maxChainDepth: 1 })
    const a = await generateSigner()
    const p1 = await mintDelegation({ issuer: root, audience: a, capabilities: caps })
    const p2 = await mintDelegation({ issuer: a, audience: user, capabilities: caps, proofs: [p1] })
    const token = await mintDelegation({ issuer: user, audience: oracle, capabilities: caps, proofs: [p2] })
    expect((await shallow.verifyDelegation(token)).error?.reason).toBe('chain_too_deep')
    expect((await verifier.verifyDelegation(token)).ok).toBeDefined()
  })

  it('verifies a did:ixo issuer with any of its resolved keys', async () => {
    const key = await generateSigner()
    const other = await generateSigner()
    const ixoDid = 'did:ixo:ixo1delegator'
    const resolving = createUcanVerifier({
      oracleDid: oracle.did(),
      resolveDidKey: async () => [other.did(), key.did()]
    })
    const token = await mintDelegation({ issuer: key.withDID(ixoDid), audience: oracle, capabilities: caps })
    expect((await resolving.verifyDelegation(token)).ok?.issuer).toBe(ixoDid)
    expect((await verifier.verifyDelegation(token)).error?.reason).toBe('unresolvable_did')
  })
})
