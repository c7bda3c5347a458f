import { decodeBase64Car } from './base64-car.ts'

/**
 * Rewrites the 64 signature bytes inside a token's CAR (R is the first half, S the second): a
 * forged token for tests, still decodable, whose signature no longer verifies.
 */
export async function tamperSignature (token: string, mutate: (signature: Uint8Array) => void): Promise<string> {
  const delegation = await decodeBase64Car(token)
  const raw = delegation.signature.raw
  const bytes = Buffer.from(token, 'base64')
  const at = bytes.indexOf(Buffer.from(raw))
  if (at < 0) throw new Error('signature not found in the archive')
  const copy = Uint8Array.from(raw)
  mutate(copy)
  Buffer.from(copy).copy(bytes, at)
  return bytes.toString('base64')
}
