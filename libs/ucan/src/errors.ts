/** Why a token was refused. Stable strings: apps log them and tests assert on them. */
export type UcanFailureReason =
  | 'malformed'
  | 'wrong_audience'
  | 'expired'
  | 'not_yet_valid'
  | 'no_expiry'
  | 'lifetime_too_long'
  | 'capability_count'
  | 'unauthorized'
  | 'invalid_signature'
  | 'proof_not_embedded'
  | 'chain_misaligned'
  | 'chain_too_deep'
  | 'unresolvable_did'
  | 'revoked'
  /** A sound invocation of another ability than the one asked for. */
  | 'wrong_ability'

/** A refused token; `message` is for logs only, so a caller learns nothing about which check failed. */
export class UcanError extends Error {
  readonly reason: UcanFailureReason
  constructor (reason: UcanFailureReason, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'UcanError'
    this.reason = reason
  }
}

export type Verdict<T> = { ok: T, error?: undefined } | { ok?: undefined, error: UcanError }

export const refuse = (reason: UcanFailureReason, message: string, cause?: unknown): { error: UcanError } =>
  ({ error: new UcanError(reason, message, cause !== undefined ? { cause } : undefined) })
