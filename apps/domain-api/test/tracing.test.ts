import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startOtlpReceiver, until, type OtlpReceiver } from '@impact/service-kit/testing'
import { startApp, type TestApp } from './helper.ts'
import { hookedReceiver } from './webhook-receiver.ts'

const TRACE_ID = '6bf92f3577b34da6a3ce929d0e0e4736'
const CALLER_SPAN = '20f067aa0ba902b7'
const HOOK_TRACE_ID = '0af7651916cd43dd8448eb211c80319c'
const UPDATE_TRACE_ID = '5b8efff798038103d269b633813fc60c'

let collector: OtlpReceiver
let t: TestApp
beforeAll(async () => {
  collector = await startOtlpReceiver()
  t = await startApp({
    WEBHOOK_POLL_INTERVAL_MS: '20',
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    OTEL_BSP_SCHEDULE_DELAY: '20'
  })
}, 60_000)
afterAll(async () => {
  await t?.close()
  await collector?.close()
})

describe('tracing in domain-api', () => {
  it('continues the caller\'s trace in a span of the route', async () => {
    const { key } = await t.issueKey(['registrar'])
    await t.createDomain(key, {}, { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` })
    await until(() => collector.spans().some((span) => span.traceId === TRACE_ID))
    expect(collector.spans().filter((span) => span.traceId === TRACE_ID)).toEqual([expect.objectContaining({
      service: 'domain-api', name: 'POST /v1/domains', parentSpanId: CALLER_SPAN, kind: 2
    })])
  })

  it('sends each webhook in the trace of the request that wrote its event, as its delivery span', async () => {
    const { receiver } = await hookedReceiver(t, { events: ['created'] })
    const { key } = await t.issueKey(['registrar'])
    const { did } = await t.createDomain(key, {}, { traceparent: `00-${HOOK_TRACE_ID}-${CALLER_SPAN}-01` })
    // A hook may also get earlier events that were not yet in the feed when it was registered.
    const mine = () => receiver.received.find((delivery) => delivery.body.includes(did))
    await until(() => mine() !== undefined, { timeout: 10_000 })
    const [, traceId, parentId] = String(mine()!.headers.traceparent).split('-')
    expect(traceId).toBe(HOOK_TRACE_ID)
    await until(() => collector.spans().filter((span) => span.traceId === traceId).length === 3)
    const spans = collector.spans().filter((span) => span.traceId === traceId)
    const route = spans.find((span) => span.name === 'POST /v1/domains')
    const delivery = spans.find((span) => span.name === 'webhook delivery')
    expect(route).toMatchObject({ parentSpanId: CALLER_SPAN })
    expect(delivery).toMatchObject({
      service: 'domain-api', parentSpanId: route?.spanId, attributes: { 'webhook.attempt': 1 }
    })
    expect(spans.find((span) => span.spanId === parentId)).toMatchObject({
      name: 'POST', kind: 3, parentSpanId: delivery?.spanId, attributes: { 'http.response.status_code': 204 }
    })
    // The trace context is the operator's: the receiver's payload does not carry it.
    expect(mine()!.body).not.toContain(HOOK_TRACE_ID)
  })

  it('continues the trace of an update in its webhook too', async () => {
    const { receiver } = await hookedReceiver(t, { events: ['updated'] })
    const { key } = await t.issueKey(['registrar'])
    const { did } = await t.createDomain(key)
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/v1/domains/${did}`,
      headers: { authorization: `Bearer ${key}`, traceparent: `00-${UPDATE_TRACE_ID}-${CALLER_SPAN}-01` },
      payload: { metadata: { name: 'Renamed' } }
    })
    expect(res.statusCode).toBe(200)
    const mine = () => receiver.received.find((delivery) => delivery.body.includes(did))
    await until(() => mine() !== undefined, { timeout: 10_000 })
    expect(String(mine()!.headers.traceparent).split('-')[1]).toBe(UPDATE_TRACE_ID)
  })
})
