import { gunzipSync, brotliDecompressSync } from 'node:zlib'
import { describe, expect, it, onTestFinished } from 'vitest'
import { buildGateway, nodeAndGateway, startNode, testPrefix } from '../helper.ts'

const servers = process.env.REDIS_URL !== undefined && process.env.REDIS_URL !== ''

describe('rate limits', () => {
  it('answers 429 code 8 once a client spent its budget, and never counts /health', async () => {
    const { app } = await nodeAndGateway({}, { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000' })
    for (let i = 0; i < 3; i++) {
      expect((await app.inject({ method: 'GET', url: '/ixo/entity/params' })).statusCode).toBe(200)
    }
    const refused = await app.inject({ method: 'GET', url: '/ixo/entity/params' })
    expect(refused.statusCode).toBe(429)
    expect(refused.json()).toMatchObject({ code: 8 })
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0)
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200)
  })
})

describe('method allow and deny lists', () => {
  it('serves only allowed methods; denied ones answer 404 like unknown paths and leave /docs', async () => {
    const { app } = await nodeAndGateway({}, {
      CHAIN_METHODS_ALLOW: 'ixo.entity.,ixo.claims.v1beta1.Query',
      CHAIN_METHODS_DENY: '/ixo.claims.v1beta1.Query/ClaimList,ixo.entity.v1beta1.Query/EntityList'
    })
    expect((await app.inject({ method: 'GET', url: '/ixo/entity/params' })).statusCode).toBe(200)
    expect((await app.inject({ method: 'GET', url: '/ixo/claims/params' })).statusCode).toBe(200)
    for (const url of ['/ixo/claims/claims', '/ixo/entity', '/ixo/token/params']) {
      const res = await app.inject({ method: 'GET', url })
      expect(res.statusCode).toBe(404)
      expect(res.json()).toEqual({ code: 5, message: 'Not Found', details: [] })
    }
    const paths = Object.keys((await app.inject({ method: 'GET', url: '/docs/json' })).json().paths)
    expect(paths).toContain('/ixo/claims/params')
    expect(paths).not.toContain('/ixo/claims/claims')
    expect(paths).not.toContain('/ixo/token/params')
  })
})

describe('compression', () => {
  it('compresses large answers with gzip or brotli as the client accepts', async () => {
    const { app } = await nodeAndGateway()
    const plain = await app.inject({ method: 'GET', url: '/ixo/claims/claims' })
    expect(plain.rawPayload.byteLength).toBeGreaterThan(1024)
    const gzip = await app.inject({ method: 'GET', url: '/ixo/claims/claims', headers: { 'accept-encoding': 'gzip' } })
    expect(gzip.headers['content-encoding']).toBe('gzip')
    expect(gunzipSync(gzip.rawPayload).toString()).toBe(plain.body)
    const br = await app.inject({ method: 'GET', url: '/ixo/claims/claims', headers: { 'accept-encoding': 'br' } })
    expect(br.headers['content-encoding']).toBe('br')
    expect(br.rawPayload.byteLength).toBeLessThan(plain.rawPayload.byteLength)
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(plain.body)
  })
})

describe('HTTP caching by block height', () => {
  it('tags latest answers with their height and answers 304 while it is current', async () => {
    const { node, app } = await nodeAndGateway(
      { startHeight: 300 },
      { CHAIN_CACHE_LATEST_TTL_MS: '3000', CHAIN_CACHE_ENABLED: 'false' }
    )
    const first = await app.inject({ method: 'GET', url: '/ixo/entity/params' })
    expect(first.headers.etag).toBe('W/"300"')
    expect(first.headers['cache-control']).toBe('public, max-age=3')
    const again = await app.inject({
      method: 'GET',
      url: '/ixo/entity/params',
      headers: { 'if-none-match': first.headers.etag! }
    })
    expect(again.statusCode).toBe(304)
    expect(again.body).toBe('')
    node.setHeight(301)
    const moved = await app.inject({
      method: 'GET',
      url: '/ixo/entity/params',
      headers: { 'if-none-match': first.headers.etag! }
    })
    expect(moved.statusCode).toBe(200)
    expect(moved.headers.etag).toBe('W/"301"')
    expect(moved.json()).toEqual(first.json())
  })

  it('marks pinned answers immutable and revalidates them without asking the node', async () => {
    const { node, app } = await nodeAndGateway({ startHeight: 300 }, { CHAIN_CACHE_LATEST_TTL_MS: '0' })
    const pinned = { 'x-cosmos-block-height': '250' }
    const first = await app.inject({ method: 'GET', url: '/ixo/claims/claims', headers: pinned })
    expect(first.statusCode).toBe(200)
    expect(first.headers.etag).toBe('W/"250"')
    expect(first.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    const latest = await app.inject({ method: 'GET', url: '/ixo/claims/claims' })
    expect(latest.headers['cache-control']).toBe('no-cache')
    const calls = node.calls.get('/ixo.claims.v1beta1.Query/ClaimList')
    const revalidated = await app.inject({
      method: 'GET',
      url: '/ixo/claims/claims?pagination.limit=2',
      headers: { ...pinned, 'if-none-match': '"250"' }
    })
    expect(revalidated.statusCode).toBe(304)
    expect(node.calls.get('/ixo.claims.v1beta1.Query/ClaimList')).toBe(calls)
    const other = await app.inject({
      method: 'GET',
      url: '/ixo/claims/claims',
      headers: { ...pinned, 'if-none-match': 'W/"249"' }
    })
    expect(other.statusCode).toBe(200)
  })
})

describe.runIf(servers)('response cache shared in Redis', () => {
  it('answers a second replica from the first one\'s cached answer', async () => {
    const node = await startNode({ startHeight: 300 })
    const prefix = testPrefix()
    const env = { CHAIN_GRPC_URL: node.url, CHAIN_CACHE_LATEST_TTL_MS: '60000' }
    const a = await buildGateway(env, prefix)
    const b = await buildGateway(env, prefix)
    onTestFinished(async () => {
      await a.close()
      await b.close()
      await node.close()
    })
    const path = '/ixo.claims.v1beta1.Query/ClaimList'
    const pinned = { method: 'GET', url: '/ixo/claims/claims', headers: { 'x-cosmos-block-height': '200' } } as const
    const first = await a.inject(pinned)
    await new Promise((resolve) => setTimeout(resolve, 100))
    const second = await b.inject(pinned)
    expect(second.statusCode).toBe(200)
    expect(second.body).toBe(first.body)
    expect(second.headers['x-cosmos-block-height']).toBe('200')
    expect(node.calls.get(path)).toBe(1)
  })
})
