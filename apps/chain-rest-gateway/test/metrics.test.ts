import { describe, expect, it, onTestFinished } from 'vitest'
import { listenWithMetrics } from '@impact/service-kit'
import { scrapeMetrics, scrapeWhen } from '@impact/service-kit/testing'
import { buildGateway, startNode } from './helper.ts'

async function twoNodesAndGateway (env: Record<string, string> = {}) {
  const first = await startNode({ startHeight: 300 })
  const second = await startNode({ startHeight: 300 })
  const app = await buildGateway({ CHAIN_GRPC_URL: `${first.url},${second.url}`, ...env })
  onTestFinished(async () => {
    await app.close()
    await first.close()
    await second.close()
  })
  const { address, metricsUrl } = await listenWithMetrics(app, { host: '127.0.0.1', port: 0 })
  return { first, second, app, address, metricsUrl: metricsUrl! }
}

describe('chain-rest-gateway metrics', () => {
  it('times queries per node, counts cache hits and misses, and shows the height a node answered at', async () => {
    const { address, metricsUrl } = await twoNodesAndGateway({ CHAIN_CACHE_LATEST_TTL_MS: '60000' })
    for (let i = 0; i < 3; i++) {
      expect((await fetch(`${address}/ixo/claims/claims?pagination.limit=3`)).status).toBe(200)
    }
    // Like a Cosmos node, the development node answers a missing claim with code 2 (UNKNOWN), sent on as 500.
    expect((await fetch(`${address}/ixo/claims/claim/nope`)).status).toBe(500)
    const scrape = await scrapeWhen(metricsUrl, 'http_request_duration_seconds', {}, 4)
    expect(scrape.value('chain_cache_lookups_total', { result: 'miss' })).toBe(2)
    expect(scrape.value('chain_cache_lookups_total', { result: 'hit' })).toBe(2)
    // Healthy nodes take turns, so the two calls may have gone to either.
    expect(scrape.value('chain_upstream_request_duration_seconds', { outcome: 'ok' })).toBe(1)
    expect(scrape.value('chain_upstream_request_duration_seconds', { outcome: 'UNKNOWN' })).toBe(1)
    expect(scrape.value('chain_upstream_errors_total', { code: 'UNKNOWN' })).toBe(1)
    const answered = scrape.labelSets('chain_upstream_block_height').map((labels) => labels.node)
    expect(answered.length).toBeGreaterThan(0)
    for (const node of answered) expect(scrape.value('chain_upstream_block_height', { node: node ?? '' })).toBe(300)
    expect(scrape.value('chain_upstream_up', { node: '1' })).toBe(1)
    expect(scrape.value('chain_upstream_lag_blocks', { node: '0' })).toBe(0)
    const routes = scrape.labelSets('http_request_duration_seconds').map((labels) => labels.route)
    expect(routes).toContain('/ixo/claims/claims')
    expect(routes).toContain('/ixo/claims/claim/{id}')
    expect(routes.some((route) => route?.includes('nope'))).toBe(false)
  })

  it('shows a node that went away: its errors, the failover to the next and its state', async () => {
    const { first, address, metricsUrl } = await twoNodesAndGateway({ CHAIN_CACHE_ENABLED: 'false' })
    await first.close()
    expect((await fetch(`${address}/ixo/claims/claims`)).status).toBe(200)
    const scrape = await scrapeMetrics(metricsUrl)
    expect(scrape.value('chain_upstream_errors_total', { node: '0', code: 'UNAVAILABLE' })).toBe(1)
    expect(scrape.value('chain_upstream_request_duration_seconds', { node: '1', outcome: 'ok' })).toBe(1)
    expect(scrape.value('chain_upstream_up', { node: '0' })).toBe(0)
    expect(scrape.value('chain_cache_lookups_total')).toBe(0)
  })

  it('serves no /metrics on the app port (an unknown path there is the gateway\'s 404)', async () => {
    const { address, metricsUrl } = await twoNodesAndGateway()
    expect((await fetch(`${address}/metrics`)).status).toBe(404)
    const scrape = await scrapeWhen(metricsUrl, 'http_request_duration_seconds', { route: 'unmatched' }, 1)
    expect(scrape.value('http_request_duration_seconds', { route: 'unmatched', status_class: '4xx' })).toBe(1)
  })
})
