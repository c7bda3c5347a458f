import { describe, expect, it } from 'vitest'
import { createUcanVerifier, generateSigner, mintDelegation, mintInvocation } from '../src/index.ts'
import { nowS, tamperSignature } from './helpers.ts'

const registry = await generateSigner()
const user = await generateSigner()
const service = await generateSigner()
const verifier = createUcanVerifier({ oracleDid: registry.did() })
const create = (account: string) => ({ can: 'domain/create', with: account })

/** user → service delegation of `can` on the user's DID, then the service invokes `domain/create`. */
async function viaService (options: { can?: string, issuer?: typeof user, expiration?: number } = {}) {
  const proof = await mintDelegation({
    issuer: options.issuer ?? user,
    audience: service,
    capabilities: [{ can: options.can ?? 'domain/*', with: user.did() }],
    ...(options.expiration !== undefined ? { expiration: options.expiration } : {})
  })
  return await mintInvocation({ issuer: service, audience: registry, capability: create(user.did()), proofs: [proof] })
}

describe('verifyAccountInvocation', () => {
  it('accepts an invocation the account issued itself', async () => {
    const token = await mintInvocation({ issuer: user, audience: registry, capability: create(user.did()) })
    const verdict = await verifier.verifyAccountInvocation(token, 'domain/create')
    expect(verdict.ok).toMatchObject({ account: user.did(), invoker: user.did(), ability: 'domain/create' })
  })

  it('accepts a service invoking with the account\'s delegation, naming both', async () => {
    const verdict = await verifier.verifyAccountInvocation(await viaService(), 'domain/create')
    expect(verdict.ok).toMatchObject({ account: user.did(), invoker: service.did() })
    expect(verdict.ok?.cids).toHaveLength(2)
  })

  it('takes the earliest expiry in the chain', async () => {
    const expiration = nowS() + 120
    const verdict = await verifier.verifyAccountInvocation(await viaService({ expiration }), 'domain/create')
    expect(verdict.ok?.expiration).toBe(expiration)
  })

  it('refuses an invocation of another ability than the one asked for', async () => {
    const token = await mintInvocation({ issuer: user, audience: registry, capability: create(user.did()) })
    expect((await verifier.verifyAccountInvocation(token, 'domain/update')).error?.reason).toBe('wrong_ability')
  })

  it('refuses a chain whose delegation grants another ability', async () => {
    const token = await viaService({ can: 'verification/vote' })
    expect((await verifier.verifyAccountInvocation(token, 'domain/create')).error?.reason).toBe('unauthorized')
  })

  it('refuses a service acting for an account without any proof', async () => {
    const token = await mintInvocation({ issuer: service, audience: registry, capability: create(user.did()) })
    expect((await verifier.verifyAccountInvocation(token, 'domain/create')).error?.reason).toBe('unauthorized')
  })

  it('refuses a chain rooted at someone other than the account', async () => {
    const stranger = await generateSigner()
    const token = await viaService({ issuer: stranger })
    expect((await verifier.verifyAccountInvocation(token, 'domain/create')).error?.reason).toBe('unauthorized')
  })

  it('refuses a chain with a forged proof signature', async () => {
    const proof = await tamperSignature(
      await mintDelegation({ issuer: user, audience: service, capabilities: [{ can: 'domain/*', with: user.did() }] }),
      (sig) => { sig[40] = (sig[40] ?? 0) ^ 1 })
    const token = await mintInvocation({
      issuer: service, audience: registry, capability: create(user.did()), proofs: [proof]
    })
    expect((await verifier.verifyAccountInvocation(token, 'domain/create')).error?.reason).toBe('invalid_signature')
  })

  it('refuses a chain with an expired proof', async () => {
    const token = await viaService({ expiration: nowS() - 10 })
    expect((await verifier.verifyAccountInvocation(token, 'domain/create')).error?.reason).toBe('expired')
  })

  it.each([
    ['expired', { expiration: nowS() - 60 }, 'expired'],
    ['addressed elsewhere', { audience: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK' }, 'wrong_audience'],
    ['without expiry', { expiration: Infinity }, 'no_expiry']
  ])('refuses an invocation %s', async (_name, overrides, reason) => {
    const token = await mintInvocation({
      issuer: user, audience: registry, capability: create(user.did()), ...overrides
    })
    expect((await verifier.verifyAccountInvocation(token, 'domain/create')).error?.reason).toBe(reason)
  })

  it('refuses a resource that is not a DID', async () => {
    const token = await mintInvocation({
      issuer: user, audience: registry, capability: { can: 'domain/create', with: 'ixo:oracle' }
    })
    expect((await verifier.verifyAccountInvocation(token, 'domain/create')).error?.reason).toBe('unauthorized')
  })
})
