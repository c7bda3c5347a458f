import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listenWithMetrics } from '@impact/service-kit'
import { scrapeMetrics, scrapeWhen } from '@impact/service-kit/testing'
import { issueGovernance, voteThrough } from './governance.ts'
import { startApp, type TestApp } from './helper.ts'
import { hookedReceiver, waitFor } from './webhook-receiver.ts'

const FAST = { WEBHOOK_POLL_INTERVAL_MS: '20', WEBHOOK_RETRY_BASE_MS: '20', WEBHOOK_RETRY_MAX_MS: '50' }

describe('domain-api metrics', () => {
  let t: TestApp
  let address: string
  let metricsUrl: string
  beforeAll(async () => {
    t = await startApp(FAST)
    const listening = await listenWithMetrics(t.app, { host: '127.0.0.1', port: 0 })
    address = listening.address
    metricsUrl = listening.metricsUrl!
  })
  afterAll(async () => { await t?.close() })

  it('counts creates by outcome, proposals, votes and the verification they decide', async () => {
    const keys = await issueGovernance(t)
    const before = await scrapeMetrics(metricsUrl)
    const domain = await t.createDomain(keys.registrar.key)
    const refused = await fetch(`${address}/v1/domains`, {
      method: 'POST',
      headers: { ...t.auth(keys.registrar.key), 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'Spaceship', class: 'did:ixo:protocol/clean-cooking', metadata: { name: 'X' } })
    })
    expect(refused.status).toBeGreaterThanOrEqual(400)
    const { code } = await refused.json() as { code: string }
    await voteThrough(t, domain.did, keys.compliance, keys.voters)

    const after = await scrapeWhen(metricsUrl, 'http_request_duration_seconds',
      { route: '/v1/verification-proposals/:id/votes' }, 3)
    const delta = (name: string, labels: Record<string, string>) =>
      after.value(name, labels) - before.value(name, labels)
    expect(delta('domain_api_creates_total', { kind: 'single', outcome: 'ok' })).toBe(1)
    expect(delta('domain_api_creates_total', { kind: 'single', outcome: code })).toBe(1)
    expect(delta('domain_api_proposals_total', { outcome: 'ok' })).toBe(1)
    expect(delta('domain_api_votes_total', { vote: 'yes', outcome: 'ok' })).toBe(3)
    expect(delta('domain_api_verifications_total', { outcome: 'passed' })).toBe(1)
    const routes = after.labelSets('http_request_duration_seconds').map((labels) => labels.route)
    expect(routes).toContain('/v1/domains')
    expect(routes.some((route) => route?.includes('did:'))).toBe(false)
    expect(after.value('db_query_duration_seconds', { outcome: 'ok' })).toBeGreaterThan(0)
  }, 20_000)

  it('counts webhook deliveries by outcome and shows the backlog while a receiver is down', async () => {
    const before = await scrapeMetrics(metricsUrl)
    const { receiver } = await hookedReceiver(t, { events: ['created'] })
    receiver.setUnavailable(true)
    const owner = await t.issueKey(['registrar'])
    await t.createDomain(owner.key)
    await waitFor(() => receiver.refused() >= 2, 'refused attempts')
    const backlog = await scrapeMetrics(metricsUrl)
    expect(backlog.value('domain_api_webhook_oldest_pending_seconds')).toBeGreaterThan(0)
    expect(backlog.value('domain_api_webhook_deliveries_total', { outcome: 'retry' }) -
      before.value('domain_api_webhook_deliveries_total', { outcome: 'retry' })).toBeGreaterThanOrEqual(2)

    receiver.setUnavailable(false)
    await waitFor(() => receiver.received.length === 1, 'the delivery')
    const after = await scrapeWhen(metricsUrl, 'domain_api_webhook_deliveries_total', { outcome: 'delivered' },
      before.value('domain_api_webhook_deliveries_total', { outcome: 'delivered' }) + 1)
    expect(after.value('domain_api_webhook_oldest_pending_seconds')).toBe(0)
    expect(after.value('domain_api_outbox_lag_seconds')).toBe(0)
    expect(after.typeOf('domain_api_outbox_lag_seconds')).toBe('GAUGE')
  }, 20_000)

  it('serves no /metrics on the app port', async () => {
    expect((await fetch(`${address}/metrics`)).status).toBe(404)
  })
})
