import { context, ROOT_CONTEXT, SpanKind, type Attributes, type Tracer } from '@opentelemetry/api'
import { markFailed, remoteParent, withSpan, type Carrier } from './context.ts'
import type { TracingConfig } from './config.ts'

export interface SpanOptions {
  kind?: SpanKind
  attributes?: Attributes
  /** Headers (or a handshake's) of a remote caller: its `traceparent` is the parent instead of the active span. */
  carrier?: Carrier
}

export interface Tracing {
  readonly enabled: boolean
  /** Parent: the caller named in `carrier`, else the active span, else a new trace. */
  inSpan: <T>(name: string, options: SpanOptions, fn: () => Promise<T>) => Promise<T>
  /** Exports what is left (a few seconds at most) and stops; the app's `onClose` does it. */
  close: () => Promise<void>
}

export const TRACING_OFF: Tracing = Object.freeze({
  enabled: false,
  inSpan: async <T>(_name: string, _options: SpanOptions, fn: () => Promise<T>): Promise<T> => await fn(),
  close: async () => {}
})

const tracers = new WeakMap<Tracing, Tracer>()

/** The tracer behind an enabled tracing (the request hooks start server spans with it). */
export const tracerOf = (tracing: Tracing): Tracer | undefined => tracers.get(tracing)

export interface CreateTracingOptions {
  service: string
  version?: string | undefined
  config: TracingConfig
  /** Where export trouble is told (once when it starts failing, once when it recovers). */
  log?: { warn: (message: string) => void, info: (message: string) => void }
}

/** Without an OTLP endpoint no SDK is even loaded; otherwise the app gets its own tracer provider. */
export async function createTracing (options: CreateTracingOptions): Promise<Tracing> {
  const { config } = options
  const endpoint = config.OTEL_EXPORTER_OTLP_ENDPOINT
  if (endpoint === undefined) return TRACING_OFF
  const { startSdk } = await import('./sdk.ts')
  const sdk = startSdk({
    service: options.service,
    version: options.version,
    endpoint,
    ratio: config.OTEL_TRACES_SAMPLER_ARG ?? 1,
    scheduleDelayMs: config.OTEL_BSP_SCHEDULE_DELAY ?? 5000,
    // Outside any trace: the batch timer runs in the context of whichever request's span ended first.
    report: (failing) => context.with(ROOT_CONTEXT, () => {
      if (failing) options.log?.warn('trace export failing: spans are dropped until the collector answers')
      else options.log?.info('trace export working again')
    })
  })
  const { tracer } = sdk
  const tracing: Tracing = {
    enabled: true,
    async inSpan (name, spanOptions, fn) {
      const parent = spanOptions.carrier !== undefined ? remoteParent(spanOptions.carrier) : context.active()
      const span = tracer.startSpan(name, {
        kind: spanOptions.kind ?? SpanKind.INTERNAL,
        ...(spanOptions.attributes !== undefined ? { attributes: spanOptions.attributes } : {})
      }, parent)
      try {
        return await context.with(withSpan(parent, span, tracer), fn)
      } catch (error) {
        markFailed(span, error)
        throw error
      } finally {
        span.end()
      }
    },
    close: sdk.close
  }
  tracers.set(tracing, tracer)
  return tracing
}
