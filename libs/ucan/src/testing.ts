import { decodeBase64Car } from './base64-car.ts'

/** A forged but decodable token for tests: `mutate` rewrites its 64 signature bytes (R, then S). */
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
