import { randomBytes } from 'node:crypto'

/** `C` + 8 upper-case hex digits from the CSPRNG (2^32 ids; inserts retry on a collision). */
export const generateCustomerId = (): string => `C${randomBytes(4).toString('hex').toUpperCase()}`

/** The key a sign-up is stored under, drawn once per sign-up and kept in its session (16 bytes from the CSPRNG). */
export const newCreationKey = (): string => randomBytes(16).toString('base64url')

const CUSTOMER_ID = /^C[0-9A-F]{8}$/

/** The canonical form of a typed customer id (case-insensitive, spaces ignored), or undefined. */
export function normaliseCustomerId (input: string): string | undefined {
  const id = input.replace(/\s+/g, '').toUpperCase()
  return CUSTOMER_ID.test(id) ? id : undefined
}
