import { afterEach, describe, expect, it, vi } from 'vitest'
import { createUcanVerifier } from '../src/index.ts'
import { decodeBase64Car, generateSigner, mintDelegation, mintInvocation } from '../src/mint.ts'
import { nowS } from './helpers.ts'

describe('@impact/ucan/mint without Node built-ins (the browser path)', () => {
  afterEach(() => { vi.unstubAllGlobals() })

  it('mints tokens the verifier accepts and decodes them with atob/btoa instead of Buffer', async () => {
    const oracle = await generateSigner()
    const user = await generateSigner()
    const verifier = createUcanVerifier({ oracleDid: oracle.did() })
    vi.stubGlobal('Buffer', undefined)
    const expiration = nowS() + 600
    const delegation = await mintDelegation({ issuer: user, audience: oracle.did(), capabilities: [{ can: '*', with: 'ixo:oracle' }], expiration })
    const invocation = await mintInvocation({ issuer: user, audience: oracle.did() })
    const decoded = await decodeBase64Car(delegation)
    expect(decoded.expiration).toBe(expiration)
    expect(decoded.issuer.did()).toBe(user.did())
    vi.unstubAllGlobals()
    expect((await verifier.verifyDelegation(delegation)).ok?.issuer).toBe(user.did())
    expect((await verifier.verifyInvocation(invocation)).ok?.did).toBe(user.did())
  })
})
