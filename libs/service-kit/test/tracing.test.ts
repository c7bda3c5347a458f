import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Type } from '@sinclair/typebox'
import { request as undiciRequest } from 'undici'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { loadConfig, BaseConfigSchema, startOutboundSpan, tracingOf, type App } from '../src/index.ts'
import { captureLogs, startOtlpReceiver, until, type OtlpReceiver } from '../src/testing.ts'
import { buildTestApp } from './helper.ts'

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736'
const CALLER_SPAN = '00f067aa0ba902b7'
const TRACEPARENT = `00-${TRACE_ID}-${CALLER_SPAN}-01`
const SERVER = 2
const CLIENT = 3

/** A plain HTTP server standing for a peer: it keeps the headers of every request it gets. */
async function startPeer () {
  const seen: IncomingHttpHeaders[] = []
  const server = createServer((request, response) => {
    seen.push(request.headers)
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    seen,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => { resolve() }))
    }
  }
}

let receiver: OtlpReceiver
let peer: Awaited<ReturnType<typeof startPeer>>
beforeAll(async () => {
  receiver = await startOtlpReceiver()
  peer = await startPeer()
})
afterAll(async () => {
  await Promise.all([receiver.close(), peer.close()])
})

/** An app whose routes log and call the peer with fetch, undici and by hand (what a gRPC or http call does). */
async function tracedApp (endpoint: string | undefined) {
  const logs = captureLogs()
  const app: App = await buildTestApp({
    name: 'kit-test',
    config: {
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      TRUST_PROXY_ENABLED: false,
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_BSP_SCHEDULE_DELAY: 20
    },
    logger: { stream: logs.stream }
  })
  onTestFinished(async () => { await app.close() })
  app.get('/things/:id', async (request) => {
    request.log.info('reading a thing')
    await (await fetch(`${peer.url}/by-fetch`)).json()
    await (await undiciRequest(`${peer.url}/by-undici`)).body.json()
    const manual = startOutboundSpan('grpc call', { 'rpc.system': 'grpc' })
    manual?.end({ attributes: { 'rpc.grpc.status_code': 0 } })
    return { id: request.params, manual: manual?.headers ?? null }
  })
  app.post('/things', { schema: { body: Type.Object({ name: Type.String() }) } }, async (request) => {
    request.log.info('storing a thing')
    return { name: request.body.name }
  })
  app.get('/boom', async () => { throw new Error('database password=hunter2 refused') })
  return { app, logs }
}

const spansOf = (traceId: string) => receiver.spans().filter((span) => span.traceId === traceId)

describe('tracing with OTEL_EXPORTER_OTLP_ENDPOINT set', () => {
  it('continues the caller\'s trace: a server span per route, client spans and traceparent outbound', async () => {
    const { app, logs } = await tracedApp(receiver.url)
    const response = await app.inject({ method: 'GET', url: '/things/42', headers: { traceparent: TRACEPARENT } })
    expect(response.statusCode).toBe(200)

    await until(() => spansOf(TRACE_ID).length >= 4)
    const spans = spansOf(TRACE_ID)
    const server = spans.find((span) => span.kind === SERVER)!
    expect(server).toMatchObject({
      service: 'kit-test',
      name: 'GET /things/:id',
      parentSpanId: CALLER_SPAN,
      attributes: { 'http.request.method': 'GET', 'http.route': '/things/:id', 'http.response.status_code': 200 }
    })
    const clients = spans.filter((span) => span.kind === CLIENT)
    expect(clients.map((span) => span.name).sort()).toEqual(['GET', 'GET', 'grpc call'])
    for (const client of clients) expect(client.parentSpanId).toBe(server.spanId)

    // Each outbound request named its own client span as the parent, in the caller's trace.
    const sent = peer.seen.slice(-2).map((headers) => String(headers.traceparent))
    const clientIds = clients.filter((span) => span.name === 'GET').map((span) => span.spanId).sort()
    expect(sent.map((value) => value.split('-')[1])).toEqual([TRACE_ID, TRACE_ID])
    expect(sent.map((value) => value.split('-')[2]).sort()).toEqual(clientIds)
    const manual = clients.find((span) => span.name === 'grpc call')!
    expect(response.json().manual).toEqual({ traceparent: `00-${TRACE_ID}-${manual.spanId}-01` })

    const line = logs.lines().find((entry) => entry.msg === 'reading a thing')
    expect(line).toMatchObject({ trace_id: TRACE_ID, span_id: server.spanId })
    expect(logs.lines().find((entry) => entry.msg === 'request completed')).toMatchObject({ trace_id: TRACE_ID })
  })

  it('keeps the span active once a request body is read, and starts a new trace for a bad traceparent', async () => {
    const { app, logs } = await tracedApp(receiver.url)
    const response = await app.inject({
      method: 'POST', url: '/things', payload: { name: 'stove' }, headers: { traceparent: '00-zz-yy-01' }
    })
    expect(response.statusCode).toBe(200)
    const line = logs.lines().find((entry) => entry.msg === 'storing a thing')
    expect(line?.trace_id).toMatch(/^[0-9a-f]{32}$/)
    await until(() => spansOf(line?.trace_id as string).length === 1)
    expect(spansOf(line?.trace_id as string)[0]).toMatchObject({ name: 'POST /things', parentSpanId: '' })
  })

  it('marks 5xx spans failed with the error\'s class, never its message', async () => {
    const { app } = await tracedApp(receiver.url)
    const traceId = 'a'.repeat(32)
    const response = await app.inject({ url: '/boom', headers: { traceparent: `00-${traceId}-${CALLER_SPAN}-01` } })
    expect(response.statusCode).toBe(500)
    await until(() => spansOf(traceId).length === 1)
    const [span] = spansOf(traceId)
    expect(span).toMatchObject({ name: 'GET /boom', status: 2, attributes: { 'error.type': 'Error' } })
    expect(JSON.stringify(span)).not.toContain('hunter2')
  })

  it('runs work outside requests in spans of its own, continuing a carrier\'s traceparent', async () => {
    const { app } = await tracedApp(receiver.url)
    const traceId = 'b'.repeat(32)
    const tracing = tracingOf(app)
    expect(tracing.enabled).toBe(true)
    const carrier = { traceparent: `00-${traceId}-${CALLER_SPAN}-01` }
    const headers = await tracing.inSpan('socket event', { carrier }, async () => {
      const outbound = startOutboundSpan('webhook')
      outbound?.end()
      return outbound?.headers
    })
    expect(headers?.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`))
    await until(() => spansOf(traceId).length === 2)
    expect(spansOf(traceId).map((span) => span.name).sort()).toEqual(['socket event', 'webhook'])
  })

  it('logs, outside any trace, that exports fail while the collector is away', async () => {
    const away = await startPeer()
    await away.close()
    const { app, logs } = await tracedApp(away.url)
    for (let i = 0; i < 3; i++) await app.inject({ method: 'POST', url: '/things', payload: { name: `n${i}` } })
    const failing = () => logs.lines().filter((entry) => String(entry.msg).startsWith('trace export failing'))
    await until(() => failing().length > 0, { timeout: 15_000 })
    expect(failing()).toHaveLength(1)
    expect(failing()[0]).not.toHaveProperty('trace_id')
  }, 20_000)

  it('leaves health probes untraced unless the caller traces them', async () => {
    const { app } = await tracedApp(receiver.url)
    await app.inject({ url: '/health/live' })
    const traceId = 'c'.repeat(32)
    await app.inject({ url: '/health/live', headers: { traceparent: `00-${traceId}-${CALLER_SPAN}-01` } })
    await until(() => spansOf(traceId).length === 1)
    expect(receiver.spans().filter((span) => span.name === 'GET /health/live')).toHaveLength(1)
  })
})

describe('tracing without OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('exports nothing, adds no traceparent to outbound calls and no ids to log lines', async () => {
    const before = receiver.exports()
    const seen = peer.seen.length
    const { app, logs } = await tracedApp(undefined)
    expect(tracingOf(app).enabled).toBe(false)
    const response = await app.inject({ url: '/things/7', headers: { traceparent: TRACEPARENT } })
    expect(response.json().manual).toBeNull()
    await app.close()
    expect(peer.seen.slice(seen)).toHaveLength(2)
    for (const headers of peer.seen.slice(seen)) expect(headers.traceparent).toBeUndefined()
    expect(logs.lines().find((entry) => entry.msg === 'reading a thing')).not.toHaveProperty('trace_id')
    expect(receiver.exports()).toBe(before)
  })

  it('reads the tracing variables once, with the defaults, and refuses a bad endpoint', () => {
    const defaults = { OTEL_TRACES_SAMPLER_ARG: 1, OTEL_BSP_SCHEDULE_DELAY: 5000 }
    expect(loadConfig(BaseConfigSchema, {})).toMatchObject(defaults)
    expect(loadConfig(BaseConfigSchema, {}).OTEL_EXPORTER_OTLP_ENDPOINT).toBeUndefined()
    expect(() => loadConfig(BaseConfigSchema, { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }))
      .toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/)
    expect(() => loadConfig(BaseConfigSchema, { OTEL_TRACES_SAMPLER_ARG: '2' })).toThrow(/OTEL_TRACES_SAMPLER_ARG/)
  })
})
