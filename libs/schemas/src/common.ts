import { Type, type Static, type TSchema } from '@sinclair/typebox'

/** A W3C DID (DID-core idchars, `:` and percent-escapes), with an optional path as in `did:ixo:protocol/<name>`. */
const DID_WITHOUT_PATH = 'did:[a-z0-9]+:(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})+(?::(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})+)*'
export const DID_PATTERN = `^${DID_WITHOUT_PATH}(?:/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*)?$`
/** A DID without a path, so it fits one URL path segment (an account, a principal). */
export const PATHLESS_DID_PATTERN = `^${DID_WITHOUT_PATH}$`
export const DidSchema = Type.String({
  pattern: DID_PATTERN,
  maxLength: 512,
  description: 'A decentralised identifier, e.g. did:ixo:entity:0a1b2c…',
  examples: ['did:ixo:entity:3d079ebc0b332aad3305bb4a51c72edb']
})
export type Did = Static<typeof DidSchema>

/** E.164: a leading `+`, a non-zero country digit, at most 15 digits in all. */
export const E164_PATTERN = '^\\+[1-9][0-9]{6,14}$'
export const PhoneNumberSchema = Type.String({
  pattern: E164_PATTERN,
  description: 'Phone number in E.164 international format',
  examples: ['+254712345678']
})
export type PhoneNumber = Static<typeof PhoneNumberSchema>

/** RFC 3339 date-time as produced by `Date.prototype.toISOString()` (offsets allowed on input). */
export const IsoTimestampSchema = Type.String({
  format: 'date-time',
  description: 'ISO 8601 / RFC 3339 timestamp',
  examples: ['2026-11-21T09:30:00.000Z']
})
export type IsoTimestamp = Static<typeof IsoTimestampSchema>

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

export const isDid = (value: unknown): value is Did =>
  typeof value === 'string' && value.length <= 512 && new RegExp(DID_PATTERN).test(value)

export const isE164 = (value: unknown): value is PhoneNumber =>
  typeof value === 'string' && new RegExp(E164_PATTERN).test(value)
