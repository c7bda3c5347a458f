import { describe, expect, it } from 'vitest'
import { Value } from '@sinclair/typebox/value'
import { decodeCursor, DidSchema, encodeCursor, isDid, isE164, PhoneNumberSchema } from '../src/index.ts'

describe('DidSchema', () => {
  it.each([
    'did:ixo:entity:3d079ebc0b332aad3305bb4a51c72edb',
    'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
    'did:ixo:protocol/clean-cooking',
    'did:web:example.com%3A8443'
  ])('accepts %s', (did) => {
    expect(Value.Check(DidSchema, did)).toBe(true)
    expect(isDid(did)).toBe(true)
  })

  it.each(['', 'did:', 'did:IXO:x', 'did:ixo:', 'ixo:entity:1', 'did:ixo:a b', 'did:ixo:x\n'])('rejects %j', (did) => {
    expect(isDid(did)).toBe(false)
  })
})

describe('PhoneNumberSchema', () => {
  it('accepts E.164 numbers and rejects the rest', () => {
    expect(Value.Check(PhoneNumberSchema, '+254712345678')).toBe(true)
    expect(isE164('254712345678')).toBe(false)
    expect(isE164('+0712345678')).toBe(false)
    expect(isE164('+1234567890123456')).toBe(false)
  })
})

describe('cursors', () => {
  it('round-trip a keyset position and refuse garbage', () => {
    const cursor = encodeCursor(['2026-11-21T00:00:00.000Z', 'abc'])
    expect(decodeCursor(cursor)).toEqual(['2026-11-21T00:00:00.000Z', 'abc'])
    expect(decodeCursor('not-json')).toBeUndefined()
    expect(decodeCursor(Buffer.from('{"a":1}').toString('base64url'))).toBeUndefined()
  })
})
