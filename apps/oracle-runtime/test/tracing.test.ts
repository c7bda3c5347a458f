import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startOtlpReceiver, until, type OtlpReceiver } from '@impact/service-kit/testing'
import { createHarness, type Harness, type TestUser } from './support/harness.ts'
import { connectSocket, openWs } from './support/socket-client.ts'

const CALLER_SPAN = '30f067aa0ba902b7'
const traceparent = (traceId: string) => `00-${traceId}-${CALLER_SPAN}-01`
const SERVER = 2

let collector: OtlpReceiver
let h: Harness
let base: string
let user: TestUser
let sessionId: string
beforeAll(async () => {
  collector = await startOtlpReceiver()
  h = await createHarness({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_BSP_SCHEDULE_DELAY: '20' })
  base = await h.app.listen({ host: '127.0.0.1', port: 0 })
  user = await h.user()
  sessionId = await h.newSession(user.headers)
})
afterAll(async () => {
  await h?.close()
  await collector?.close()
})

const spansOf = (traceId: string) => collector.spans().filter((span) => span.traceId === traceId)

describe('tracing in oracle-runtime', () => {
  it('continues an HTTP caller\'s trace in a span of the route', async () => {
    const traceId = 'd'.repeat(32)
    const res = await h.app.inject({
      method: 'GET', url: `/messages/${sessionId}`, headers: { ...user.headers, traceparent: traceparent(traceId) }
    })
    expect(res.statusCode).toBe(200)
    await until(() => spansOf(traceId).length === 1)
    expect(spansOf(traceId)[0]).toMatchObject({
      service: 'oracle-runtime', name: 'GET /messages/:sessionId', parentSpanId: CALLER_SPAN, kind: SERVER
    })
  })

  it('handles each socket.io event in a span under the traceparent the socket was opened with', async () => {
    const traceId = 'e'.repeat(32)
    const socket = await connectSocket(base, {
      sessionId, auth: { invocation: user.invocation, traceparent: traceparent(traceId) }
    })
    try {
      expect(await socket.emitWithAck('ping')).toEqual({ ok: true })
      expect(await socket.emitWithAck('launch_missiles', {})).toMatchObject({ ok: false })
    } finally {
      socket.disconnect()
    }
    await until(() => spansOf(traceId).length === 2)
    expect(spansOf(traceId).map((span) => [span.name, span.parentSpanId, span.kind]).sort()).toEqual([
      ['socket.io ping', CALLER_SPAN, SERVER],
      ['socket.io unknown', CALLER_SPAN, SERVER]
    ])
  })

  it('does the same for /ws messages, from the upgrade\'s traceparent header', async () => {
    const traceId = 'f'.repeat(32)
    const client = openWs(base, `/ws?sessionId=${sessionId}`, { ...user.headers, traceparent: traceparent(traceId) })
    await client.opened
    await client.next('connected')
    client.send('status', undefined, 1)
    expect(await client.next('ack')).toEqual({ id: 1, ok: true })
    client.ws.close()
    await until(() => spansOf(traceId).some((span) => span.name === 'websocket status'))
    expect(spansOf(traceId).find((span) => span.name === 'websocket status')).toMatchObject({
      service: 'oracle-runtime', parentSpanId: CALLER_SPAN
    })
  })
})
