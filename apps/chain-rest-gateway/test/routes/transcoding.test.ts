import { describe, expect, it } from 'vitest'
import { fileNodeAndGateway, nodeAndGateway } from '../helper.ts'

const gateway = fileNodeAndGateway({ CHAIN_CACHE_ENABLED: 'false' })
const { get } = gateway
const ids = (body: { claims: Array<{ claim_id: string }> }) => body.claims.map((c) => c.claim_id)

describe('query parameters → request message', () => {
  it('accepts proto and JSON names for the same field', async () => {
    const proto = (await get('/ixo/claims/claims?pagination.limit=2&pagination.count_total=true')).json()
    const json = (await get('/ixo/claims/claims?pagination.limit=2&pagination.countTotal=true')).json()
    expect(proto.pagination.total).toBe('12')
    expect(json).toEqual(proto)
  })

  it('parses booleans like Go ParseBool and ignores unknown keys', async () => {
    const body = (
      await get('/ixo/claims/claims?pagination.limit=3&pagination.reverse=T&foo=bar&pagination.nope=1')
    ).json()
    expect(ids(body)).toEqual(['bafydevclaim011', 'bafydevclaim010', 'bafydevclaim009'])
  })

  it('answers 400 InvalidArgument for values that do not parse', async () => {
    for (const query of [
      'pagination.limit=abc',
      'pagination.limit=-1',
      'pagination.limit=18446744073709551616',
      'pagination.reverse=yes',
      'pagination.key=%%%'
    ]) {
      const res = await get(`/ixo/claims/claims?${query}`)
      expect(res.statusCode, query).toBe(400)
      expect(res.json()).toMatchObject({ code: 3, details: [] })
      expect(res.json().message).toMatch(/^invalid value for pagination\./)
    }
  })

  it('takes the first of repeated keys for a singular field, as grpc-gateway v1', async () => {
    const body = (await get('/ixo/claims/claims?pagination.limit=1&pagination.limit=2&pagination.limit=x')).json()
    expect(ids(body)).toEqual(['bafydevclaim000'])
  })

  it('reads 64-bit values from decimal strings beyond 2^53', async () => {
    const body = (await get('/ixo/claims/claims?pagination.offset=9007199254740993')).json()
    expect(body.claims).toEqual([])
  })
})

describe('pagination as on Cosmos', () => {
  it('pages with offset and limit', async () => {
    const body = (
      await get('/ixo/claims/claims?pagination.offset=10&pagination.limit=5&pagination.count_total=1')
    ).json()
    expect(ids(body)).toEqual(['bafydevclaim010', 'bafydevclaim011'])
    expect(body.pagination).toEqual({ next_key: null, total: '12' })
  })

  it('continues from next_key given as standard or URL-safe base64, ignoring count_total', async () => {
    const first = (await get('/ixo/claims/claims?pagination.limit=4')).json()
    const key = first.pagination.next_key as string
    const std = (
      await get(
        `/ixo/claims/claims?pagination.limit=4&pagination.count_total=true&pagination.key=${encodeURIComponent(key)}`
      )
    ).json()
    const urlSafe = (
      await get(`/ixo/claims/claims?pagination.limit=4&pagination.key=${key.replace(/\+/g, '-').replace(/\//g, '_')}`)
    ).json()
    expect(ids(std)).toEqual(['bafydevclaim004', 'bafydevclaim005', 'bafydevclaim006', 'bafydevclaim007'])
    expect(std.pagination.total).toBe('0')
    expect(ids(urlSafe)).toEqual(ids(std))
  })

  it('fails key together with offset the way ixo list handlers do (500)', async () => {
    const res = await get('/ixo/claims/claims?pagination.key=YmFmeWRldmNsYWltMDA0&pagination.offset=1')
    expect(res.statusCode).toBe(500)
    expect(res.json()).toEqual({
      code: 13,
      message: 'invalid request, either offset or key is expected, got both',
      details: []
    })
  })
})

describe('CHAIN_MAX_PAGE_LIMIT', () => {
  it('lowers larger limits to the cap and applies it when no limit is sent', async () => {
    const { app } = await nodeAndGateway({}, { CHAIN_MAX_PAGE_LIMIT: '3' })
    const page = async (url: string) => (await app.inject({ method: 'GET', url })).json()
    const capped = await page('/ixo/claims/claims?pagination.limit=500')
    expect(ids(capped)).toEqual(['bafydevclaim000', 'bafydevclaim001', 'bafydevclaim002'])
    expect(capped.pagination.next_key).not.toBeNull()
    expect(ids(await page('/ixo/claims/claims'))).toHaveLength(3)
    expect(ids(await page('/ixo/claims/claims?pagination.limit=2'))).toHaveLength(2)
  })
})

describe('routes and methods', () => {
  it('answers 404 with a NotFound status for unknown paths and prefixes', async () => {
    for (const url of ['/ixo/unknown', '/cosmos/bank/v1beta1/balances/ixo1abc', '/ixo/claims/claims/extra']) {
      const res = await get(url)
      expect(res.statusCode, url).toBe(404)
      expect(res.json()).toEqual({ code: 5, message: 'Not Found', details: [] })
    }
  })

  it('never forwards writes: other methods on a query route answer 501 Unimplemented', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      const res = await gateway.app.inject({ method, url: '/ixo/claims/claims' })
      expect(res.statusCode).toBe(501)
      expect(res.json()).toEqual({ code: 12, message: 'Not Implemented', details: [] })
    }
    const post = await gateway.app.inject({ method: 'POST', url: '/cosmos/tx/v1beta1/txs', payload: {} })
    expect(post.statusCode).toBe(404)
  })

  it('answers malformed URLs 400 with an InvalidArgument status', async () => {
    for (const url of ['/ixo/entity/%zz', '/ixo/entity/%E0%A4%A', '/%']) {
      const res = await get(url)
      expect(res.statusCode, url).toBe(400)
      expect(res.json(), url).toMatchObject({ code: 3, details: [] })
      expect(res.json().message, url).toMatch(/is not a valid url component/)
    }
  })

  it('answers HEAD like GET without a body', async () => {
    const res = await gateway.app.inject({ method: 'HEAD', url: '/ixo/token/params' })
    expect(res.statusCode).toBe(200)
    expect(res.body).toBe('')
  })
})
