import { describe, expect, it } from 'vitest'
import { fileNodeAndGateway, nodeAndGateway } from './helper.ts'

const gateway = fileNodeAndGateway()

describe('chain-rest-gateway service basics', () => {
  it('answers GET / with the landing record and where routes came from', async () => {
    const res = await gateway.app.inject({ method: 'GET', url: '/' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({
      status: 'ok',
      message: 'chain-rest-gateway is running',
      environment: 'test',
      descriptors: 'reflection',
      routes: 27
    })
  })

  it('reports readiness, the descriptors in use and numbered nodes in /health, without their addresses', async () => {
    const res = await gateway.app.inject({ method: 'GET', url: '/health' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({
      status: 'ok',
      chain: 'connected',
      reflection: 'connected',
      descriptors: 'reflection',
      routes: '27',
      'upstream #1': 'connected'
    })
    expect(res.body).not.toContain(gateway.node.url)
  })

  it('serves an OpenAPI document generated from the descriptors at /docs', async () => {
    const ui = await gateway.app.inject({ method: 'GET', url: '/docs' })
    expect([200, 302]).toContain(ui.statusCode)
    const spec = (await gateway.app.inject({ method: 'GET', url: '/docs/json' })).json()
    expect(spec).toMatchObject({ openapi: '3.1.0', info: { title: 'Chain REST gateway' } })
    expect(Object.keys(spec.paths)).toEqual(
      expect.arrayContaining([
        '/ixo/entity/{id}',
        '/ixo/claims/claims',
        '/ixo/token/params',
        '/ixo/token/minter/{minter}/{contract_address}',
        '/health'
      ])
    )
    const claims = spec.paths['/ixo/claims/claims'].get
    expect(claims.summary).toContain('/ixo.claims.v1beta1.Query/ClaimList')
    expect(claims.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['pagination.key', 'pagination.limit', 'pagination.count_total', 'pagination.reverse'])
    )
    const params = spec.paths['/ixo/claims/params'].get.responses['200'].content['application/json'].schema
    expect(params.properties.params.properties.network_fee_percentage.description).toContain('cosmos.Dec')
    expect(params.properties.params.properties.collection_sequence.type).toBe('string')
    expect(spec.paths['/ixo/entity/{id}'].get.responses).toHaveProperty('404')
    // Only routes a client can call: no wildcard path, and template variables named after their fields.
    expect(Object.keys(spec.paths).filter((path) => /\*|=/.test(path))).toEqual([])
  })

  it('documents unset timestamps as null, as the node writes them, and the block stream', async () => {
    const spec = (await gateway.app.inject({ method: 'GET', url: '/docs/json' })).json()
    const answer = spec.paths['/ixo/claims/collection/{id}'].get.responses['200'].content['application/json']
    const collection = answer.schema.properties.collection
    expect(collection.properties.start_date).toEqual({ type: ['string', 'null'], format: 'date-time' })
    const stream = spec.paths['/cosmos/base/tendermint/v1beta1/blocks/stream'].get
    expect(Object.keys(stream.responses['200'].content)).toEqual(['text/event-stream'])
    expect(stream.parameters.map((p: { name: string }) => p.name)).toEqual(['Last-Event-ID', 'last_event_id'])
  })
})

describe('GET /health with REST gating', () => {
  it('lists node addresses only to callers presenting an API key', async () => {
    const key = 'health-key-0123456789'
    const { node, app } = await nodeAndGateway({}, { CHAIN_API_KEYS: key })
    const anonymous = await app.inject({ method: 'GET', url: '/health' })
    expect(anonymous.statusCode).toBe(200)
    expect(anonymous.body).not.toContain(node.url)
    const wrong = await app.inject({ method: 'GET', url: '/health', headers: { 'x-api-key': 'nope' } })
    expect(wrong.body).not.toContain(node.url)
    const operator = await app.inject({ method: 'GET', url: '/health', headers: { authorization: `Bearer ${key}` } })
    expect(operator.json()).toMatchObject({ [`upstream ${node.url}`]: 'connected' })
    expect(operator.json()).not.toHaveProperty('upstream #1')
  })
})

describe('CORS', () => {
  it('is off by default', async () => {
    const { app } = await nodeAndGateway()
    const res = await app.inject({
      method: 'GET',
      url: '/ixo/token/params',
      headers: { origin: 'https://app.example' }
    })
    expect(res.headers['access-control-allow-origin']).toBeUndefined()
  })

  it('allows configured origins and exposes the height headers', async () => {
    const { app } = await nodeAndGateway({}, { CORS_ORIGIN: 'https://app.example' })
    const res = await app.inject({
      method: 'GET',
      url: '/ixo/token/params',
      headers: { origin: 'https://app.example' }
    })
    expect(res.headers['access-control-allow-origin']).toBe('https://app.example')
    expect(res.headers['access-control-expose-headers']).toContain('x-cosmos-block-height')
  })
})
