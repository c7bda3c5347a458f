import { describe, expect, it, vi } from 'vitest'
import { ed25519 } from '@ucanto/principal'
import { createUcanVerifier, generateSigner, mintDelegation, mintInvocation } from '../src/index.ts'
import { nowS, tamperSignature } from './helpers.ts'

const oracle = await generateSigner()
const user = await generateSigner()
const verifier = createUcanVerifier({ oracleDid: oracle.did() })
const reasonOf = async (token: string) => (await verifier.verifyInvocation(token)).error?.reason

describe('verifyInvocation', () => {
  it('accepts a valid invocation and names its signer', async () => {
    const token = await mintInvocation({ issuer: user, audience: oracle })
    const verdict = await verifier.verifyInvocation(token)
    expect(verdict.ok).toMatchObject({ did: user.did() })
    expect(verdict.ok?.expiration).toBeGreaterThan(nowS())
  })

  it('accepts the same invocation again until it expires', async () => {
    const token = await mintInvocation({ issuer: user, audience: oracle })
    for (let i = 0; i < 3; i++) expect((await verifier.verifyInvocation(token)).ok?.did).toBe(user.did())
  })

  it('stops accepting a cached invocation once it has expired', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    try {
      const token = await mintInvocation({ issuer: user, audience: oracle, lifetimeSeconds: 60 })
      expect((await verifier.verifyInvocation(token)).ok).toBeDefined()
      vi.setSystemTime(Date.now() + 61_000)
      expect((await verifier.verifyInvocation(token)).error?.reason).toBe('expired')
    } finally {
      vi.useRealTimers()
    }
  })

  it.each([
    [
      'expired',
      async () => await mintInvocation({ issuer: user, audience: oracle, expiration: nowS() - 60 }),
      'expired'
    ],
    [
      'addressed to another oracle',
      async () => await mintInvocation({ issuer: user, audience: (await generateSigner()).did() }),
      'wrong_audience'
    ],
    [
      'without expiry',
      async () => await mintInvocation({ issuer: user, audience: oracle, expiration: Infinity }),
      'no_expiry'
    ],
    [
      'living 24 hours',
      async () => await mintInvocation({ issuer: user, audience: oracle, lifetimeSeconds: 24 * 3600 }),
      'lifetime_too_long'
    ],
    [
      'not valid yet',
      async () => await mintInvocation({ issuer: user, audience: oracle, notBefore: nowS() + 120 }),
      'not_yet_valid'
    ],
    [
      'with nbf equal to now',
      async () => await mintInvocation({ issuer: user, audience: oracle, notBefore: nowS() }),
      'not_yet_valid'
    ],
    [
      'for another ability',
      async () =>
        await mintInvocation({
          issuer: user,
          audience: oracle,
          capability: { can: 'memory/read', with: 'ixo:oracle' }
        }),
      'unauthorized'
    ],
    [
      'for another resource',
      async () =>
        await mintInvocation({ issuer: user, audience: oracle, capability: { can: '*', with: 'ixo:memory' } }),
      'unauthorized'
    ],
    [
      'that is a multi-capability delegation',
      async () =>
        await mintDelegation({
          issuer: user,
          audience: oracle,
          lifetimeSeconds: 300,
          capabilities: [
            { can: '*', with: 'ixo:oracle' },
            { can: 'memory/*', with: 'ixo:memory' }
          ]
        }),
      'capability_count'
    ]
  ])('refuses an invocation %s', async (_name, mint, reason) => {
    expect(await reasonOf(await mint())).toBe(reason)
  })

  it('refuses a signature tampered in its S half', async () => {
    const token = await tamperSignature(await mintInvocation({ issuer: user, audience: oracle }), (s) => {
      s[50] = (s[50] ?? 0) ^ 1
    })
    expect(await reasonOf(token)).toMatch(/unauthorized|invalid_signature/)
  })

  it('refuses a signature whose R half is not a curve point, without throwing', async () => {
    const token = await tamperSignature(await mintInvocation({ issuer: user, audience: oracle }), (s) => {
      s.fill(0xff, 0, 32)
    })
    expect(await reasonOf(token)).toMatch(/unauthorized|invalid_signature/)
  })

  it('refuses a forged issuer (signed with another key)', async () => {
    const attacker = await generateSigner()
    const forged = attacker.withDID(user.did())
    expect(await reasonOf(await mintInvocation({ issuer: forged, audience: oracle }))).toBe('unauthorized')
  })

  it.each([
    ['not base64', 'not base64!!'],
    ['empty', ''],
    ['base64 of junk', Buffer.from('hello world, not a CAR').toString('base64')],
    ['too long', 'A'.repeat(9000)]
  ])('refuses a token that is %s', async (_name, token) => {
    expect(await reasonOf(token)).toBe('malformed')
  })

  it('verifies a did:ixo signer through the key resolver', async () => {
    const key = await generateSigner()
    const ixoDid = 'did:ixo:ixo1user'
    const resolving = createUcanVerifier({
      oracleDid: oracle.did(),
      resolveDidKey: async (did) => (did === ixoDid ? [key.did()] : [])
    })
    const token = await mintInvocation({ issuer: key.withDID(ixoDid), audience: oracle })
    expect((await resolving.verifyInvocation(token)).ok?.did).toBe(ixoDid)
    const stranger = await mintInvocation({ issuer: key.withDID('did:ixo:ixo1stranger'), audience: oracle })
    expect((await resolving.verifyInvocation(stranger)).error?.reason).toBe('unresolvable_did')
    expect((await verifier.verifyInvocation(token)).error?.reason).toBe('unresolvable_did')
  })

  it('accepts invocations addressed to a did:ixo oracle', async () => {
    const oracleKey = await ed25519.Signer.generate()
    const ixoOracle = 'did:ixo:ixo1oracle'
    const ixoVerifier = createUcanVerifier({ oracleDid: ixoOracle, oracleKeyDid: oracleKey.did() })
    const token = await mintInvocation({ issuer: user, audience: ixoOracle })
    expect((await ixoVerifier.verifyInvocation(token)).ok?.did).toBe(user.did())
    expect(
      (await ixoVerifier.verifyInvocation(await mintInvocation({ issuer: user, audience: oracleKey.did() }))).error
        ?.reason
    ).toBe('wrong_audience')
  })

  it('keeps refusing after the refusal was cached', async () => {
    const token = await mintInvocation({ issuer: user, audience: oracle, expiration: nowS() - 1 })
    expect(await reasonOf(token)).toBe('expired')
    expect(await reasonOf(token)).toBe('expired')
  })
})
