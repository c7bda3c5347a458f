import { describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config.ts'

describe('configuration', () => {
  it('requires CHAIN_GRPC_URL and long API keys in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/CHAIN_GRPC_URL is required in production/)
    expect(() =>
      loadConfig({ NODE_ENV: 'production', CHAIN_GRPC_URL: 'grpcs://node.example:443', CHAIN_API_KEYS: 'short' })
    ).toThrow(/at least 16 characters/)
    expect(() => loadConfig({ CHAIN_ROUTE_ALIASES: 'legacy' })).toThrow(/CHAIN_ROUTE_ALIASES/)
    expect(() => loadConfig({ CHAIN_ROUTE_ALIASES: '/c/{id}=/ixo/claims/collection/{identifier}' }))
      .toThrow(/same variables/)
    expect(loadConfig({}).CHAIN_CACHE_ENABLED).toBe(true)
  })
})
