import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import type { Keyring, PinKey } from './pin-keyring.ts'

/**
 * What a sealed record holds. Each purpose has its own AES key (derived from the same key material,
 * see pin-keyring.ts) and its own associated data, so a record of one kind never opens as another.
 */
export type SealPurpose = 'pin' | 'account-key' | 'sms'

const FORMAT = 'v1'
const IV_BYTES = 12
const LABELS: Record<SealPurpose, string> = {
  pin: 'pin record',
  'account-key': 'account key record',
  sms: 'queued sms'
}
const KEYS: Record<SealPurpose, (key: PinKey) => Buffer> = {
  pin: (key) => key.seal,
  'account-key': (key) => key.accountKeySeal,
  sms: (key) => key.smsSeal
}
const keyFor = (key: PinKey, purpose: SealPurpose): Buffer => KEYS[purpose](key)
// Binds the ciphertext to its kind, format and key id, so a record cannot be relabelled.
const aad = (key: PinKey, purpose: SealPurpose) => Buffer.from(`ussd-gateway ${LABELS[purpose]} ${FORMAT} ${key.id}`)

const b64 = (bytes: Buffer) => bytes.toString('base64url')
const unb64 = (text: string) => Buffer.from(text, 'base64url')

/** AES-256-GCM with a random IV: `v1$<key id>$<iv>$<tag>$<ciphertext>`. */
export function sealRecord (key: PinKey, purpose: SealPurpose, plaintext: string): string {
  const iv = randomBytes(IV_BYTES)
  const cipher = createCipheriv('aes-256-gcm', keyFor(key, purpose), iv)
  cipher.setAAD(aad(key, purpose))
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return [FORMAT, key.id, b64(iv), b64(cipher.getAuthTag()), b64(ciphertext)].join('$')
}

/** The plaintext and the key that opened it; undefined for a record no key of the keyring opens. */
export function openRecord (
  keyring: Keyring,
  purpose: SealPurpose,
  record: string
): { key: PinKey, plaintext: string } | undefined {
  const [format, keyId, iv, tag, ciphertext] = record.split('$')
  const key = keyId === undefined ? undefined : keyring.byId.get(keyId)
  if (format !== FORMAT || key === undefined) return undefined
  if (iv === undefined || tag === undefined || ciphertext === undefined) return undefined
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyFor(key, purpose), unb64(iv))
    decipher.setAAD(aad(key, purpose))
    decipher.setAuthTag(unb64(tag))
    return { key, plaintext: Buffer.concat([decipher.update(unb64(ciphertext)), decipher.final()]).toString('utf8') }
  } catch {
    return undefined
  }
}
