import { context, SpanKind, trace, type Context, type Span } from '@opentelemetry/api'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { markFailed, remoteParent, withSpan } from './context.ts'
import { tracerOf, TRACING_OFF, type Tracing } from './tracing.ts'

/** Probes are traced only when their caller sends a traceparent: a span every few seconds per pod is noise. */
const PROBES = new Set(['/health', '/health/live'])

interface Traced { span: Span, context: Context, ended: boolean, error?: unknown }

/** The tracing `createApp` decorated the app with (off for an app built otherwise). */
export const tracingOf = (app: FastifyInstance): Tracing =>
  app.hasDecorator('tracing') ? app.getDecorator<Tracing>('tracing') : TRACING_OFF

/** Names the active request span `METHOD <template>`: see nameRequestRoute. */
export function nameSpanRoute (method: string, route: string): void {
  const span = trace.getSpan(context.active())
  if (span === undefined) return
  span.updateName(`${method} ${route}`)
  span.setAttribute('http.route', route)
}

/** The pino mixin of a tracing app: the active span's ids on every log line written inside it. */
export function traceLogFields (): Record<string, string> {
  const span = trace.getSpan(context.active())
  if (span === undefined) return {}
  const { traceId, spanId } = span.spanContext()
  return { trace_id: traceId, span_id: spanId }
}

/**
 * A server span per request, named `METHOD /route/template`, continuing the caller's `traceparent`. The
 * request's hooks and handler run with the span active: entered on arrival and again once the body is read
 * (the body's stream events come from the connection, outside the request's context).
 */
export function traceRequests (app: FastifyInstance, tracing: Tracing): void {
  const tracer = tracerOf(tracing)
  if (tracer === undefined) return
  const requests = new WeakMap<FastifyRequest, Traced>()

  // A refusal (4xx) is the caller's problem, not the server's: only 5xx and aborts mark the span failed.
  const end = (request: FastifyRequest, statusCode: number | undefined, error?: unknown) => {
    const traced = requests.get(request)
    if (traced === undefined || traced.ended) return
    traced.ended = true
    if (statusCode !== undefined) traced.span.setAttribute('http.response.status_code', statusCode)
    if (statusCode === undefined || statusCode >= 500) markFailed(traced.span, error ?? traced.error)
    traced.span.end()
  }

  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url
    const path = request.url.split('?', 1)[0] as string
    if (PROBES.has(path) && request.headers.traceparent === undefined) {
      done()
      return
    }
    const parent = remoteParent(request.headers)
    const span = tracer.startSpan(route !== undefined ? `${request.method} ${route}` : request.method, {
      kind: SpanKind.SERVER,
      attributes: {
        'http.request.method': request.method,
        ...(route !== undefined ? { 'http.route': route } : {}),
        'url.scheme': request.protocol
      }
    }, parent)
    const active = withSpan(parent, span, tracer)
    requests.set(request, { span, context: active, ended: false })
    context.with(active, done)
  })
  app.addHook('preValidation', (request, _reply, done) => {
    const traced = requests.get(request)
    if (traced === undefined) done()
    else context.with(traced.context, done)
  })
  app.addHook('onError', (request, _reply, error, done) => {
    const traced = requests.get(request)
    if (traced !== undefined) traced.error = error
    done()
  })
  app.addHook('onResponse', (request, reply, done) => {
    end(request, reply.statusCode)
    done()
  })
  app.addHook('onRequestAbort', (request, done) => {
    end(request, undefined, Object.assign(new Error('aborted'), { code: 'REQUEST_ABORTED' }))
    done()
  })
}
