import { describe, expect, it } from 'vitest'
import { createResponseCache, type CachedAnswer } from '../../src/services/response-cache.ts'

const answer = (text: string, height = '10'): CachedAnswer => ({ body: Buffer.from(text), height })
const request = (n: number) => new Uint8Array([n])

describe('response cache', () => {
  it('stays within its entry bound, giving recently used entries a second chance', async () => {
    const cache = createResponseCache({ enabled: true, latestTtlMs: 0, maxEntries: 3, maxBytes: 1 << 20 })
    for (const n of [1, 2, 3]) await cache.get('/m', '5', request(n), async () => answer(`a${n}`))
    await cache.get('/m', '5', request(1), async () => answer('refetched'))
    await cache.get('/m', '5', request(4), async () => answer('a4'))
    expect(cache.stats().entries).toBe(3)
    expect((await cache.get('/m', '5', request(1), async () => answer('refetched'))).body.toString()).toBe('a1')
    expect((await cache.get('/m', '5', request(2), async () => answer('refetched'))).body.toString()).toBe('refetched')
  })

  it('stays within its byte bound and skips answers larger than the whole cache', async () => {
    const cache = createResponseCache({ enabled: true, latestTtlMs: 0, maxEntries: 100, maxBytes: 64 })
    await cache.get('/m', '5', request(1), async () => answer('x'.repeat(100)))
    expect(cache.stats().entries).toBe(0)
    for (const n of [1, 2, 3]) await cache.get('/m', '5', request(n), async () => answer('y'.repeat(20)))
    expect(cache.stats().bytes).toBeLessThanOrEqual(64)
  })

  it('serves raw-URL aliases until their entry expires or is evicted', async () => {
    const cache = createResponseCache({ enabled: true, latestTtlMs: 30, maxEntries: 10, maxBytes: 1 << 20 })
    await cache.get('/m', '', request(1), async () => answer('latest', '12'), 'GET /x')
    expect(cache.peek('GET /x')?.body.toString()).toBe('latest')
    expect((await cache.get('/m', '12', request(1), async () => answer('refetched'))).body.toString()).toBe('latest')
    await new Promise((resolve) => setTimeout(resolve, 40))
    expect(cache.peek('GET /x')).toBeUndefined()
    cache.clear()
    expect(cache.stats()).toEqual({ entries: 0, bytes: 0, inflight: 0 })
  })
})
