import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startOtlpReceiver, until, type OtlpReceiver } from '@impact/service-kit/testing'
import { nodeAndGateway } from './helper.ts'

const TRACE_ID = '5bf92f3577b34da6a3ce929d0e0e4736'
const CALLER_SPAN = '10f067aa0ba902b7'

let receiver: OtlpReceiver
beforeAll(async () => { receiver = await startOtlpReceiver() })
afterAll(async () => { await receiver.close() })

describe('tracing through the gateway', () => {
  it('continues the caller\'s trace and sends it to the node as traceparent metadata', async () => {
    const { node, app } = await nodeAndGateway({}, {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: '20'
    })
    const response = await app.inject({
      url: '/ixo/claims/params',
      headers: { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` }
    })
    expect(response.statusCode).toBe(200)

    await until(() => receiver.spans().filter((span) => span.traceId === TRACE_ID).length === 2)
    const spans = receiver.spans().filter((span) => span.traceId === TRACE_ID)
    const server = spans.find((span) => span.parentSpanId === CALLER_SPAN)
    expect(server).toMatchObject({ service: 'chain-rest-gateway', name: 'GET /ixo/claims/params', kind: 2 })
    const client = spans.find((span) => span.kind === 3)
    expect(client).toMatchObject({
      service: 'chain-rest-gateway',
      name: 'ixo.claims.v1beta1.Query/Params',
      parentSpanId: server?.spanId,
      attributes: { 'rpc.system': 'grpc', 'rpc.grpc.status_code': 0 }
    })
    expect(node.traceparents).toEqual([`00-${TRACE_ID}-${client?.spanId}-01`])
  })

  it('sends no traceparent to the node when tracing is off', async () => {
    const { node, app } = await nodeAndGateway()
    const response = await app.inject({
      url: '/ixo/claims/params',
      headers: { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` }
    })
    expect(response.statusCode).toBe(200)
    expect(node.calls.get('/ixo.claims.v1beta1.Query/Params')).toBe(1)
    expect(node.traceparents).toEqual([])
  })
})
