import { create, toBinary, type DescField } from '@bufbuild/protobuf'
import { anyPack, AnySchema, TimestampSchema } from '@bufbuild/protobuf/wkt'
import { describe, expect, it } from 'vitest'
import { buildRegistry, createOptionReader, type FieldTraits } from '../../src/services/descriptors.ts'
import { createJsonWriter, formatDec, formatDuration, formatTimestamp } from '../../src/services/json-writer.ts'
import { compileTemplate, bindingValues } from '../../src/services/path-template.ts'

describe('gogo jsonpb formatting', () => {
  it('writes cosmos.Dec with 18 decimals, padding and sign', () => {
    expect(formatDec('100000000000000000')).toBe('0.100000000000000000')
    expect(formatDec('1')).toBe('0.000000000000000001')
    expect(formatDec('-2500000000000000000')).toBe('-2.500000000000000000')
    expect(formatDec('')).toBe('0.000000000000000000')
  })

  it('writes customtype Dec and Int fields as the node\'s MarshalJSON; nullable ones never set are null', () => {
    const registry = buildRegistry([])
    const coin = registry.getMessage('cosmos.base.v1beta1.Coin')!
    const write = (traits: Partial<FieldTraits>, amount: string) => {
      const all = { nonNullable: false, custom: undefined, scalar: undefined, rawJson: false, ...traits }
      const traitsOf = (field: DescField) => (field.name === 'amount' ? all : createOptionReader().traits(field))
      return JSON.parse(createJsonWriter(registry, traitsOf)(coin, create(coin, { denom: 'uixo', amount }) as never))
    }
    expect(write({ custom: 'dec', nonNullable: true }, '25').amount).toBe('0.000000000000000025')
    expect(write({ custom: 'dec', nonNullable: true }, '').amount).toBe('0.000000000000000000')
    expect(write({ custom: 'dec' }, '').amount).toBeNull()
    expect(write({ custom: 'int', nonNullable: true }, '').amount).toBe('0')
    expect(write({ custom: 'int' }, '7').amount).toBe('7')
    expect(write({ scalar: 'dec' }, '').amount).toBe('')
    expect(write({ scalar: 'dec' }, '1').amount).toBe('1')
  })

  it('writes timestamps and durations with 0, 3, 6 or 9 fractional digits', () => {
    expect(formatTimestamp(1704164645n, 0)).toBe('2024-01-02T03:04:05Z')
    expect(formatTimestamp(1704164645n, 250_000_000)).toBe('2024-01-02T03:04:05.250Z')
    expect(formatTimestamp(1704164645n, 1_000)).toBe('2024-01-02T03:04:05.000001Z')
    expect(formatTimestamp(-62135596800n, 0)).toBe('0001-01-01T00:00:00Z')
    expect(formatDuration(3600n, 0)).toBe('3600s')
    expect(formatDuration(1n, 500_000_000)).toBe('1.500s')
    expect(formatDuration(0n, -5)).toBe('-0.000000005s')
  })

  it('expands Any by its type URL and keeps unknown packed types as bytes', () => {
    const registry = buildRegistry([])
    const writer = createJsonWriter(registry, createOptionReader().traits)
    const coinDesc = registry.getMessage('cosmos.base.v1beta1.Coin')!
    const packed = anyPack(coinDesc, create(coinDesc, { denom: 'uixo', amount: '5' }))
    expect(writer(AnySchema, packed as never)).toBe(
      '{"@type":"type.googleapis.com/cosmos.base.v1beta1.Coin","denom":"uixo","amount":"5"}'
    )
    const stamp = anyPack(TimestampSchema, create(TimestampSchema, { seconds: 0n }))
    expect(writer(AnySchema, stamp as never)).toBe(
      '{"@type":"type.googleapis.com/google.protobuf.Timestamp","value":"1970-01-01T00:00:00Z"}'
    )
    const unknown = create(AnySchema, {
      typeUrl: '/x.y.Z',
      value: toBinary(TimestampSchema, create(TimestampSchema, { seconds: 1n }))
    })
    expect(writer(AnySchema, unknown as never)).toBe('{"@type":"/x.y.Z","value":"CAE="}')
  })
})

describe('path templates', () => {
  it('maps {x}, {x=**} and multi-segment variables onto router paths', () => {
    expect(compileTemplate('/ixo/token/minter/{minter}/{contract_address}').fastifyPath).toBe(
      '/ixo/token/minter/:minter/:contract_address'
    )
    const deep = compileTemplate('/cosmos/bank/v1beta1/denoms_metadata/{denom=**}')
    expect(deep.fastifyPath).toBe('/cosmos/bank/v1beta1/denoms_metadata/*')
    expect(bindingValues(deep.bindings, { '*': 'ibc/ABC' })).toEqual([['denom', 'ibc/ABC']])
    const multi = compileTemplate('/v1/{name=shelves/*/books/*}:get')
    expect(multi.fastifyPath).toBe('/v1/shelves/:name/books/:name_2::get')
    expect(bindingValues(multi.bindings, { name: 's1', name_2: 'b2' })).toEqual([['name', 'shelves/s1/books/b2']])
    expect(compileTemplate('/a/{x=**}/b/c')).toMatchObject({ fastifyPath: '/a/*', tail: ['b', 'c'] })
    expect(() => compileTemplate('/a/{x=**}/{y}')).toThrow(/only literal segments/)
    expect(() => compileTemplate('/a/{x}/{x}')).toThrow(/twice/)
  })
})
