import diagnostics from 'node:diagnostics_channel'
import { context, SpanKind, type Attributes } from '@opentelemetry/api'
import { isTracingSuppressed } from '@opentelemetry/core'
import { activeTracer, markFailed, traceHeaders } from './context.ts'

export interface OutboundSpan {
  /** `traceparent` (and `tracestate`) to send with the call. */
  headers: Record<string, string>
  /** Ends the span; `failed` marks it an error (with the error's code when given). */
  end: (outcome?: { attributes?: Attributes, failed?: boolean, error?: unknown }) => void
}

/**
 * A client span for a call leaving the app, a child of the active span; undefined when no trace of the
 * platform's apps is active (tracing off, or work outside any request), so callers send nothing then.
 */
export function startOutboundSpan (name: string, attributes: Attributes = {}): OutboundSpan | undefined {
  const active = context.active()
  const tracer = activeTracer(active)
  if (tracer === undefined || isTracingSuppressed(active)) return undefined
  const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, active)
  return {
    headers: traceHeaders(active, span),
    end (outcome = {}) {
      if (outcome.attributes !== undefined) span.setAttributes(outcome.attributes)
      if (outcome.failed === true || outcome.error !== undefined) markFailed(span, outcome.error)
      span.end()
    }
  }
}

/** What undici publishes of a request on its diagnostics channels (Node's fetch and the undici package alike). */
interface UndiciRequest {
  method: string
  origin: string
  headers: string[] | string
  addHeader: (name: string, value: string) => unknown
}

const hasTraceparent = (headers: string[] | string): boolean => Array.isArray(headers)
  ? headers.some((value, index) => index % 2 === 0 && value.toLowerCase() === 'traceparent')
  : /(^|\r\n)traceparent:/i.test(headers)

const pending = new WeakMap<UndiciRequest, OutboundSpan>()

function onCreate (message: unknown): void {
  const { request } = message as { request: UndiciRequest }
  // A caller that already names a parent (a proxy passing one on) keeps it.
  if (hasTraceparent(request.headers)) return
  let origin: URL
  try {
    origin = new URL(request.origin)
  } catch {
    return
  }
  const span = startOutboundSpan(request.method, {
    'http.request.method': request.method,
    'server.address': origin.hostname,
    'server.port': Number(origin.port !== '' ? origin.port : origin.protocol === 'https:' ? 443 : 80)
  })
  if (span === undefined) return
  for (const [name, value] of Object.entries(span.headers)) request.addHeader(name, value)
  pending.set(request, span)
}

function onHeaders (message: unknown): void {
  const { request, response } = message as { request: UndiciRequest, response: { statusCode: number } }
  const span = pending.get(request)
  if (span === undefined) return
  // Ended once the headers are in: a streamed body (SSE) would otherwise hold the span open for its life.
  pending.delete(request)
  span.end({ attributes: { 'http.response.status_code': response.statusCode }, failed: response.statusCode >= 400 })
}

function onError (message: unknown): void {
  const { request, error } = message as { request: UndiciRequest, error: unknown }
  const span = pending.get(request)
  if (span === undefined) return
  pending.delete(request)
  span.end({ error })
}

const CHANNELS: Array<[string, (message: unknown) => void]> = [
  ['undici:request:create', onCreate],
  ['undici:request:headers', onHeaders],
  ['undici:request:error', onError]
]

/**
 * Client spans and `traceparent` on every undici request (fetch included) made while a trace is active.
 * Node's diagnostics channels need no loader or module patching, so this holds under ESM.
 */
export function traceUndici (): () => void {
  for (const [name, listener] of CHANNELS) diagnostics.subscribe(name, listener)
  return () => {
    for (const [name, listener] of CHANNELS) diagnostics.unsubscribe(name, listener)
  }
}
