import { describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config.ts'
import { nodeAndGateway } from './helper.ts'

const KEY = 'dev-key-0123456789abcdef'

describe('REST gating by API key', () => {
  it('answers 401 without a key, 403 with a wrong one, and serves with Bearer or X-API-Key', async () => {
    const { app } = await nodeAndGateway({}, { CHAIN_API_KEYS: `other-key-00000000000,${KEY}` })
    const missing = await app.inject({ method: 'GET', url: '/ixo/token/params' })
    expect(missing.statusCode).toBe(401)
    expect(missing.json()).toMatchObject({ code: 16, details: [] })
    expect(missing.headers['www-authenticate']).toBe('Bearer')
    const wrong = await app.inject({ method: 'GET', url: '/ixo/token/params', headers: { authorization: 'Bearer nope' } })
    expect(wrong.statusCode).toBe(403)
    expect(wrong.json()).toEqual({ code: 7, message: 'API key not accepted', details: [] })
    expect((await app.inject({ method: 'GET', url: '/ixo/token/params', headers: { authorization: `Bearer ${KEY}` } })).statusCode).toBe(200)
    expect((await app.inject({ method: 'GET', url: '/ixo/token/params', headers: { 'x-api-key': KEY } })).statusCode).toBe(200)
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200)
  })
})

describe('CORS', () => {
  it('is off by default', async () => {
    const { app } = await nodeAndGateway()
    const res = await app.inject({ method: 'GET', url: '/ixo/token/params', headers: { origin: 'https://app.example' } })
    expect(res.headers['access-control-allow-origin']).toBeUndefined()
  })

  it('allows configured origins and exposes the height headers', async () => {
    const { app } = await nodeAndGateway({}, { CORS_ORIGIN: 'https://app.example' })
    const res = await app.inject({ method: 'GET', url: '/ixo/token/params', headers: { origin: 'https://app.example' } })
    expect(res.headers['access-control-allow-origin']).toBe('https://app.example')
    expect(res.headers['access-control-expose-headers']).toContain('x-cosmos-block-height')
  })
})

describe('configuration', () => {
  it('requires CHAIN_GRPC_URL and long API keys in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/CHAIN_GRPC_URL is required in production/)
    expect(() => loadConfig({ NODE_ENV: 'production', CHAIN_GRPC_URL: 'grpcs://node.example:443', CHAIN_API_KEYS: 'short' })).toThrow(/at least 16 characters/)
    expect(() => loadConfig({ CHAIN_ROUTE_ALIASES: 'legacy' })).toThrow(/CHAIN_ROUTE_ALIASES/)
    expect(loadConfig({}).CHAIN_CACHE_ENABLED).toBe(true)
  })
})
