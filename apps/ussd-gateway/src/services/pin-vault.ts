import { createHmac, randomBytes, randomInt, scrypt, timingSafeEqual } from 'node:crypto'
import { UssdPinRecordError } from '../errors.ts'
import type { Keyring, PinKey } from './pin-keyring.ts'
import type { PinQueue } from './pin-queue.ts'
import { openRecord, sealRecord } from './sealed-record.ts'

const SCRYPT = { N: 16_384, r: 8, p: 1 }
const HASH_BYTES = 32
const SALT_BYTES = 16

const b64 = (bytes: Buffer) => bytes.toString('base64url')
const unb64 = (text: string) => Buffer.from(text, 'base64url')

function scryptHash (password: Buffer, salt: Buffer, params: typeof SCRYPT): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, HASH_BYTES, { ...params, maxmem: 64 * 1024 * 1024 }, (error, hash) => {
      if (error !== null) reject(error)
      else resolve(hash)
    })
  })
}

const pepper = (key: PinKey, pin: string) => createHmac('sha256', key.pepper).update(pin, 'utf8').digest()

export interface PinCheck {
  ok: boolean
  /** Reseal it with `seal` after a successful check. */
  stale: boolean
}

// Nothing decrypts to the PIN: checks recompute the peppered scrypt hash and compare in constant time.
export function createPinVault (keyring: Keyring, queue?: PinQueue) {
  const queued = async (password: Buffer, salt: Buffer, params: typeof SCRYPT): Promise<Buffer> => {
    const task = () => scryptHash(password, salt, params)
    return await (queue === undefined ? task() : queue.run(task))
  }
  return {
    keyId: keyring.current.id,

    async seal (pin: string): Promise<string> {
      const key = keyring.current
      const salt = randomBytes(SALT_BYTES)
      const digest = await queued(pepper(key, pin), salt, SCRYPT)
      return sealRecord(key, 'pin', [SCRYPT.N, SCRYPT.r, SCRYPT.p, b64(salt), b64(digest)].join(':'))
    },

    /** A record no key opens throws instead: it says nothing about the PIN typed. */
    async verify (pin: string, record: string): Promise<PinCheck> {
      const opened = openRecord(keyring, 'pin', record)
      const [n, r, p, salt, hash] = opened?.plaintext.split(':') ?? []
      if (opened === undefined || salt === undefined || hash === undefined) throw new UssdPinRecordError()
      const params = { N: Number(n), r: Number(r), p: Number(p) }
      const expected = unb64(hash)
      const actual = await queued(pepper(opened.key, pin), unb64(salt), params)
      const ok = actual.length === expected.length && timingSafeEqual(actual, expected)
      const stale = opened.key.id !== keyring.current.id ||
        params.N !== SCRYPT.N || params.r !== SCRYPT.r || params.p !== SCRYPT.p
      return { ok, stale }
    }
  }
}

export type PinVault = ReturnType<typeof createPinVault>

export function isWeakPin (pin: string): boolean {
  if (/^(\d)\1+$/.test(pin)) return true
  const digits = [...pin].map(Number)
  const steps = new Set(digits.slice(1).map((d, i) => d - (digits[i] ?? 0)))
  return steps.size === 1 && (steps.has(1) || steps.has(-1))
}

export function temporaryPin (): string {
  for (;;) {
    const pin = String(randomInt(100_000)).padStart(5, '0')
    if (!isWeakPin(pin)) return pin
  }
}
