import { describe, expect, it, onTestFinished } from 'vitest'
import { until } from '@impact/service-kit/testing'
import { buildGateway, nodeAndGateway, startNode } from '../helper.ts'

describe('x-cosmos-block-height', () => {
  it('reports the answering height in both headers and pins queries to a height', async () => {
    const { app } = await nodeAndGateway({ startHeight: 200 })
    const latest = await app.inject({ method: 'GET', url: '/ixo/entity' })
    expect(latest.headers['x-cosmos-block-height']).toBe('200')
    expect(latest.headers['grpc-metadata-x-cosmos-block-height']).toBe('200')
    expect(latest.json().entities).toHaveLength(7)

    const early = await app.inject({ method: 'GET', url: '/ixo/entity', headers: { 'x-cosmos-block-height': '20' } })
    expect(early.headers['x-cosmos-block-height']).toBe('20')
    expect(early.json().entities.map((e: { type: string }) => e.type)).toEqual(['protocol', 'dao'])
    const zero = await app.inject({ method: 'GET', url: '/ixo/entity', headers: { 'x-cosmos-block-height': '0' } })
    expect(zero.headers['x-cosmos-block-height']).toBe('200')
  })

  it('reads Grpc-Metadata-X-Cosmos-Block-Height alike and refuses two different heights', async () => {
    const { app } = await nodeAndGateway({ startHeight: 200 })
    const prefixed = await app.inject({
      method: 'GET',
      url: '/ixo/entity',
      headers: { 'grpc-metadata-x-cosmos-block-height': '20' }
    })
    expect(prefixed.headers['x-cosmos-block-height']).toBe('20')
    expect(prefixed.json().entities).toHaveLength(2)
    const both = { 'x-cosmos-block-height': '20', 'grpc-metadata-x-cosmos-block-height': '20' }
    expect((await app.inject({ method: 'GET', url: '/ixo/entity', headers: both })).statusCode).toBe(200)
    const conflicting = await app.inject({
      method: 'GET',
      url: '/ixo/entity',
      headers: { ...both, 'grpc-metadata-x-cosmos-block-height': '21' }
    })
    expect(conflicting.statusCode).toBe(400)
    expect(conflicting.json().code).toBe(3)
  })

  it('answers 400 for malformed and future heights, with only the grpc-metadata header on errors', async () => {
    const { app } = await nodeAndGateway({ startHeight: 200 })
    for (const value of ['abc', '-5', '1.5', '99999999999999999999']) {
      const res = await app.inject({ method: 'GET', url: '/ixo/entity', headers: { 'x-cosmos-block-height': value } })
      expect(res.statusCode, value).toBe(400)
      expect(res.json().code).toBe(3)
    }
    const future = await app.inject({ method: 'GET', url: '/ixo/entity', headers: { 'x-cosmos-block-height': '201' } })
    expect(future.statusCode).toBe(400)
    expect(future.json()).toEqual({
      code: 3,
      message: 'cannot query with height in the future; please provide a valid height',
      details: []
    })
    expect(future.headers['x-cosmos-block-height']).toBeUndefined()
    expect(future.headers['grpc-metadata-x-cosmos-block-height']).toBe('200')
  })
})

describe('upstream failures', () => {
  it('answers 503 while the node is away and recovers when it comes back', async () => {
    const first = await startNode()
    const port = first.port
    const app = await buildGateway({ CHAIN_GRPC_URL: first.url, CHAIN_CACHE_ENABLED: 'false' })
    let node = first
    onTestFinished(async () => {
      await app.close()
      await node.close()
    })
    expect((await app.inject({ method: 'GET', url: '/ixo/token/params' })).statusCode).toBe(200)

    await first.close()
    const down = await app.inject({ method: 'GET', url: '/ixo/token/params' })
    expect(down.statusCode).toBe(503)
    expect(down.json()).toMatchObject({ code: 14, details: [] })
    const health = await app.inject({ method: 'GET', url: '/health' })
    expect(health.statusCode).toBe(503)
    expect(health.json()).toMatchObject({ status: 'degraded', chain: 'disconnected', 'upstream #1': 'disconnected' })

    node = await startNode({ port })
    const recovered = async () => (await app.inject({ method: 'GET', url: '/ixo/token/params' })).statusCode === 200
    await until(recovered, { timeout: 5000, interval: 50 })
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200)
  })

  it('fails over to the next node and reports each one in /health', async () => {
    const dead = await startNode()
    const deadUrl = dead.url
    await dead.close()
    const live = await startNode()
    const app = await buildGateway({ CHAIN_GRPC_URL: `${deadUrl},${live.url}`, CHAIN_CACHE_ENABLED: 'false' })
    onTestFinished(async () => {
      await app.close()
      await live.close()
    })
    const res = await app.inject({ method: 'GET', url: '/ixo/claims/params' })
    expect(res.statusCode).toBe(200)
    expect(live.calls.get('/ixo.claims.v1beta1.Query/Params')).toBe(1)
    const health = (await app.inject({ method: 'GET', url: '/health' }))
    expect(health.statusCode).toBe(200)
    expect(health.json()).toMatchObject({
      chain: 'connected',
      'upstream #1': 'disconnected',
      'upstream #2': 'connected'
    })
  })

  it('answers 504 when the node misses the deadline', async () => {
    const { app } = await nodeAndGateway({ delayMs: 800 }, { CHAIN_GRPC_TIMEOUT_MS: '200' })
    const res = await app.inject({ method: 'GET', url: '/ixo/token/params' })
    expect(res.statusCode).toBe(504)
    expect(res.json().code).toBe(4)
  })

  it('answers 429 ResourceExhausted for answers above the receive limit', async () => {
    const { app } = await nodeAndGateway({}, { CHAIN_GRPC_MAX_RECEIVE_BYTES: '2048' })
    const res = await app.inject({ method: 'GET', url: '/ixo/did/dids' })
    expect(res.statusCode).toBe(429)
    expect(res.json().code).toBe(8)
  })
})
