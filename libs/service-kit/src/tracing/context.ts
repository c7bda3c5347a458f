import {
  context,
  createContextKey,
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type Tracer
} from '@opentelemetry/api'
import { W3CTraceContextPropagator } from '@opentelemetry/core'

/** In the context, not a global provider, so apps sharing a process export under their own service name. */
export const TRACER_KEY = createContextKey('impact.tracer')

export const propagator = new W3CTraceContextPropagator()

export type Carrier = Record<string, string | string[] | undefined>

/** The remote parent named by a carrier's `traceparent`, or the root context when it names none (or a bad one). */
export const remoteParent = (carrier: Carrier): Context =>
  propagator.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter)

/** The `traceparent` of the active span, kept with work done later (an outbox); undefined outside a trace. */
export function activeTraceparent (): string | undefined {
  const carrier: Record<string, string> = {}
  propagator.inject(context.active(), carrier, defaultTextMapSetter)
  return carrier.traceparent
}

export function traceHeaders (parent: Context, span: Span): Record<string, string> {
  const headers: Record<string, string> = {}
  propagator.inject(trace.setSpan(parent, span), headers, defaultTextMapSetter)
  return headers
}

export const withSpan = (parent: Context, span: Span, tracer: Tracer): Context =>
  trace.setSpan(parent, span).setValue(TRACER_KEY, tracer)

export const activeTracer = (active: Context = context.active()): Tracer | undefined =>
  active.getValue(TRACER_KEY) as Tracer | undefined

/** Never records the message: it may quote input, and spans leave the process. */
export function markFailed (span: Span, error?: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR })
  if (error === undefined || error === null) return
  const { code, name } = error as { code?: unknown, name?: unknown }
  const type = typeof code === 'string' ? code : typeof name === 'string' ? name : 'Error'
  span.setAttribute('error.type', type)
}
