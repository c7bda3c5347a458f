import { describe, expect, it } from 'vitest'
import { create, toBinary } from '@bufbuild/protobuf'
import { AnySchema } from '@bufbuild/protobuf/wkt'
import { ChainStatusError, GrpcCode } from '../../src/errors.ts'
import type { Handler } from '../../src/dev-node/handlers.ts'
import { buildRegistry, createOptionReader } from '../../src/services/descriptors.ts'
import { createJsonWriter } from '../../src/services/json-writer.ts'
import { fileNodeAndGateway } from '../helper.ts'
import { upstreamFiles } from '../upstream-protos.ts'

const CONTRACT = 'ixo1dev0contract00000000000000000000000000000000000000000000'
const text = (value: string) => new TextEncoder().encode(value)
const base64 = (value: string) => Buffer.from(value).toString('base64')
const CONFIG = '{ "owner": "ixo1dev0admin",\n  "cap": 18446744073709551617, "note": "<b>fees & dues</b>",' +
  ' "rate": 0.1000000000000000000001 }'

/** A contract answering by query kind; a query it does not know fails as wasmd reports it (Unknown). */
const contract: Handler = (request) => {
  const query = JSON.parse(new TextDecoder().decode(request.queryData as Uint8Array)) as Record<string, unknown>
  if ('config' in query) return { data: text(CONFIG) }
  if ('legacy_bytes' in query) return { data: text('not json') }
  if ('nothing' in query) return { data: new Uint8Array(0) }
  throw new ChainStatusError(GrpcCode.UNKNOWN, 'Error parsing into type dev::QueryMsg: unknown variant: query wasm')
}

const gateway = fileNodeAndGateway({ CHAIN_CACHE_ENABLED: 'false' }, {
  modules: {
    files: upstreamFiles(
      'cosmwasm/wasm/v1/query.proto',
      'cosmos/mint/v1beta1/query.proto',
      'cosmos/gov/v1/query.proto'
    ),
    handlers: {
      '/cosmwasm.wasm.v1.Query/SmartContractState': contract,
      '/cosmos.mint.v1beta1.Query/Inflation': () => ({ inflation: text('130000000000000000') }),
      '/cosmos.mint.v1beta1.Query/AnnualProvisions': () => ({ annualProvisions: new Uint8Array(0) }),
      '/cosmos.gov.v1.Query/Params': () => ({
        params: { quorum: '0.334000000000000000', threshold: '0.5', minInitialDepositRatio: '' }
      })
    }
  }
})
const smart = async (query: string, encode = base64) =>
  await gateway.get(`/cosmwasm/wasm/v1/contract/${CONTRACT}/smart/${encodeURIComponent(encode(query))}`)

describe('GET /cosmwasm/wasm/v1/contract/{address}/smart/{query_data} (wasmd v0.50 descriptors)', () => {
  it('writes the contract\'s answer inline as compact JSON, numbers untouched, HTML escaped as Go', async () => {
    const res = await smart('{"config":{}}')
    expect(res.statusCode).toBe(200)
    expect(res.body).toBe(
      '{"data":{"owner":"ixo1dev0admin","cap":18446744073709551617,' +
        '"note":"\\u003cb\\u003efees \\u0026 dues\\u003c/b\\u003e","rate":0.1000000000000000000001}}'
    )
    const urlSafe = await smart('{"config":{"?":">>"}}', (q) => base64(q).replace(/\+/g, '-').replace(/\//g, '_'))
    expect(base64('{"config":{"?":">>"}}')).toMatch(/[+/]/)
    expect(urlSafe.body).toBe(res.body)
  })

  it('answers null for an empty answer and base64 for bytes that are not JSON', async () => {
    expect((await smart('{"nothing":{}}')).json()).toEqual({ data: null })
    expect((await smart('{"legacy_bytes":{}}')).json()).toEqual({ data: base64('not json') })
  })

  it('passes the contract\'s error on as the node reports it', async () => {
    const res = await smart('{"unknown":{}}')
    expect(res.statusCode).toBe(500)
    expect(res.json()).toEqual({
      code: 2,
      message: 'Error parsing into type dev::QueryMsg: unknown variant: query wasm',
      details: []
    })
  })
})

describe('cosmos.Dec in upstream descriptors', () => {
  it('renders a Dec declared as bytes (LegacyDec customtype) as a decimal string', async () => {
    expect((await gateway.get('/cosmos/mint/v1beta1/inflation')).body).toBe('{"inflation":"0.130000000000000000"}')
    expect((await gateway.get('/cosmos/mint/v1beta1/annual_provisions')).json()).toEqual({
      annual_provisions: '0.000000000000000000'
    })
  })

  it('keeps scalar-only Dec strings as the node holds them, empty ones empty', async () => {
    const { params, tally_params: tally } = (await gateway.get('/cosmos/gov/v1/params/tallying')).json()
    expect(params).toMatchObject({ quorum: '0.334000000000000000', threshold: '0.5', min_initial_deposit_ratio: '' })
    expect(tally).toBeNull()
  })
})

describe('transaction messages', () => {
  it('writes the msg of a packed MsgExecuteContract inline, like the node\'s tx answers', () => {
    const registry = buildRegistry(upstreamFiles('cosmwasm/wasm/v1/tx.proto'))
    const desc = registry.getMessage('cosmwasm.wasm.v1.MsgExecuteContract')!
    const msg = create(desc, {
      sender: 'ixo1dev0agent',
      contract: CONTRACT,
      msg: text('{"transfer": {"amount": "5", "recipient": "ixo1dev0admin"}}'),
      funds: [{ denom: 'uixo', amount: '10' }]
    })
    const packed = { typeUrl: '/cosmwasm.wasm.v1.MsgExecuteContract', value: toBinary(desc, msg) }
    const json = createJsonWriter(registry, createOptionReader().traits)(AnySchema, create(AnySchema, packed))
    expect(JSON.parse(json)).toEqual({
      '@type': '/cosmwasm.wasm.v1.MsgExecuteContract',
      sender: 'ixo1dev0agent',
      contract: CONTRACT,
      msg: { transfer: { amount: '5', recipient: 'ixo1dev0admin' } },
      funds: [{ denom: 'uixo', amount: '10' }]
    })
  })
})
