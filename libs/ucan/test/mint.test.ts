import { randomBytes } from 'node:crypto'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createUcanVerifier } from '../src/index.ts'
import { fromBase64, toBase64 } from '../src/base64-car.ts'
import { decodeBase64Car, generateSigner, mintDelegation, mintInvocation } from '../src/mint.ts'
import { nowS } from './helpers.ts'

describe('@impact/ucan/mint', () => {
  afterEach(() => { vi.unstubAllGlobals() })

  it('mints tokens the verifier accepts and decodes them again', async () => {
    const oracle = await generateSigner()
    const user = await generateSigner()
    const verifier = createUcanVerifier({ oracleDid: oracle.did() })
    const expiration = nowS() + 600
    const delegation = await mintDelegation({
      issuer: user,
      audience: oracle.did(),
      capabilities: [{ can: '*', with: 'ixo:oracle' }],
      expiration
    })
    const decoded = await decodeBase64Car(delegation)
    expect(decoded.expiration).toBe(expiration)
    expect((await verifier.verifyDelegation(delegation)).ok?.issuer).toBe(user.did())
    const invocation = await mintInvocation({ issuer: user, audience: oracle.did() })
    expect((await verifier.verifyInvocation(invocation)).ok?.did).toBe(user.did())
  })

  it('mints a distinct delegation each time, even with the same content in the same second', async () => {
    const [oracle, user] = [await generateSigner(), await generateSigner()]
    const expiration = nowS() + 600
    const capabilities = [{ can: '*', with: 'ixo:oracle' }]
    const mint = async () => await mintDelegation({ issuer: user, audience: oracle.did(), capabilities, expiration })
    const [first, second] = [await decodeBase64Car(await mint()), await decodeBase64Car(await mint())]
    expect(first.expiration).toBe(second.expiration)
    expect(first.cid.toString()).not.toBe(second.cid.toString())
  })

  it('encodes base64 the same way without Buffer (the browser path)', () => {
    const samples = [new Uint8Array(0), Uint8Array.of(0, 255, 1), new Uint8Array(randomBytes(70_000))]
    const expected = samples.map((bytes) => Buffer.from(bytes).toString('base64'))
    vi.stubGlobal('Buffer', undefined)
    const encoded = samples.map(toBase64)
    const decoded = encoded.map(fromBase64)
    vi.unstubAllGlobals()
    expect(encoded).toEqual(expected)
    expect(decoded).toEqual(samples)
  })
})
