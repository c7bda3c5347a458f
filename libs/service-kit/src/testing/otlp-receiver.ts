import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gunzipSync } from 'node:zlib'

/** One span as a collector received it, with the `service.name` of the resource that sent it. */
export interface ReceivedSpan {
  service: string
  traceId: string
  spanId: string
  /** Empty for the root span of a trace. */
  parentSpanId: string
  name: string
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  kind: number
  attributes: Record<string, unknown>
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  status: number
}

export interface OtlpReceiver {
  /** The base URL to give as OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string
  /** Every span received so far, in arrival order. */
  spans: () => ReceivedSpan[]
  /** Export requests received (whatever their content). */
  exports: () => number
  close: () => Promise<void>
}

interface AnyValue { stringValue?: string, intValue?: string | number, boolValue?: boolean, doubleValue?: number }
interface KeyValue { key: string, value?: AnyValue }
interface ExportRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] }
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string
        spanId: string
        parentSpanId?: string
        name: string
        kind?: number
        attributes?: KeyValue[]
        status?: { code?: number }
      }>
    }>
  }>
}

const valueOf = (value: AnyValue | undefined): unknown =>
  value?.stringValue ?? (value?.intValue !== undefined ? Number(value.intValue) : undefined) ??
    value?.boolValue ?? value?.doubleValue

const attributesOf = (list: KeyValue[] = []): Record<string, unknown> =>
  Object.fromEntries(list.map(({ key, value }) => [key, valueOf(value)]))

async function readBody (request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  const body = Buffer.concat(chunks)
  return request.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body
}

/**
 * An OTLP/HTTP collector on loopback for tests: `POST /v1/traces` with the JSON encoding (what the
 * platform's exporter sends), decoded as the OTLP spec lays it out (ids in hex, attributes as key/value lists).
 */
export async function startOtlpReceiver (): Promise<OtlpReceiver> {
  const received: ReceivedSpan[] = []
  let exports = 0
  const server = createServer((request, response) => {
    readBody(request).then((body) => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end()
        return
      }
      if (request.headers['content-type']?.startsWith('application/json') !== true) {
        response.writeHead(415).end()
        return
      }
      exports++
      const payload = JSON.parse(body.toString('utf8')) as ExportRequest
      for (const resourceSpans of payload.resourceSpans ?? []) {
        const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'])
        for (const span of (resourceSpans.scopeSpans ?? []).flatMap((scope) => scope.spans ?? [])) {
          received.push({
            service,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? '',
            name: span.name,
            kind: span.kind ?? 0,
            attributes: attributesOf(span.attributes),
            status: span.status?.code ?? 0
          })
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    }).catch(() => { response.writeHead(400).end() })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => [...received],
    exports: () => exports,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => { resolve() }))
    }
  }
}
