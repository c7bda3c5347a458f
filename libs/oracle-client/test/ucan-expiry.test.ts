import { describe, expect, it } from 'vitest'
import { generateSigner, mintDelegation, mintInvocation } from '@impact/ucan'
import { readUcanExpiry } from '../src/index.ts'

const nowS = () => Math.floor(Date.now() / 1000)
const user = await generateSigner()
const root = await generateSigner()
const oracle = await generateSigner()
const caps = [{ can: '*', with: 'ixo:oracle' }]

describe('readUcanExpiry', () => {
  it('reads the expiry of an invocation and of a delegation from the token', async () => {
    const expiration = nowS() + 300
    expect(readUcanExpiry(await mintInvocation({ issuer: user, audience: oracle.did(), expiration }))).toBe(expiration)
    expect(
      readUcanExpiry(
        await mintDelegation({ issuer: user, audience: oracle.did(), capabilities: caps, expiration: expiration + 99 })
      )
    ).toBe(expiration + 99)
  })

  it('takes the earliest expiry along an embedded proof chain', async () => {
    const earliest = nowS() + 120
    const proof = await mintDelegation({ issuer: root, audience: user.did(), capabilities: caps, expiration: earliest })
    const token = await mintDelegation({
      issuer: user,
      audience: oracle.did(),
      capabilities: caps,
      expiration: earliest + 3600,
      proofs: [proof]
    })
    expect(readUcanExpiry(token)).toBe(earliest)
  })

  it('says Infinity for a token that never expires and undefined for anything unreadable', async () => {
    expect(
      readUcanExpiry(
        await mintDelegation({ issuer: user, audience: oracle.did(), capabilities: caps, expiration: Infinity })
      )
    ).toBe(Infinity)
    const token = await mintInvocation({ issuer: user, audience: oracle.did() })
    for (const junk of [
      '',
      'not base64!',
      'AAAA',
      token.slice(0, 40),
      token.slice(0, -8) + 'AAAAAAA=',
      'eyJhbGciOiJIUzI1NiJ9'
    ]) { expect(readUcanExpiry(junk)).toBeUndefined() }
  })
})
