import { Delegation } from '@ucanto/core'
import type { Delegation as DelegationView } from '@ucanto/interface'

/** Standard base64 with padding, as ixo clients send it (Buffer would silently skip junk characters). */
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/

// Buffer where it exists (Node: fastest); atob/btoa elsewhere, so minting also works in a browser.
export const fromBase64 = (text: string): Uint8Array =>
  typeof Buffer === 'function'
    ? new Uint8Array(Buffer.from(text, 'base64'))
    : Uint8Array.from(atob(text), (c) => c.charCodeAt(0))
export const toBase64 = (bytes: Uint8Array): string => {
  if (typeof Buffer === 'function') return Buffer.from(bytes).toString('base64')
  let binary = ''
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(binary)
}

/** A token larger than this is refused before decoding (real chains are far smaller). */
export const MAX_TOKEN_LENGTH = 8192

/** Decodes a base64 CAR, touching the lazily decoded fields so a corrupt token fails here, not inside a check. */
export async function decodeBase64Car (token: string, maxLength = MAX_TOKEN_LENGTH): Promise<DelegationView> {
  if (typeof token !== 'string' || token.length === 0 || token.length > maxLength || !BASE64.test(token)) {
    throw new TypeError('not a base64 token of acceptable size')
  }
  const result = await Delegation.extract(fromBase64(token))
  if (result.error !== undefined) throw result.error
  const delegation = result.ok
  const touched = [
    delegation.issuer.did(),
    delegation.audience.did(),
    delegation.capabilities,
    delegation.expiration,
    delegation.notBefore,
    delegation.proofs
  ]
  if (touched.length === 0) throw new TypeError('unreachable')
  return delegation
}

/** Archives a delegation or invocation as the base64 CAR that travels in headers. */
export async function encodeBase64Car (delegation: DelegationView): Promise<string> {
  const archive = await delegation.archive()
  if (archive.error !== undefined) throw archive.error
  return toBase64(archive.ok)
}
