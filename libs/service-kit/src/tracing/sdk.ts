import { context, type Tracer } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { ExportResultCode } from '@opentelemetry/core'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { resourceFromAttributes } from '@opentelemetry/resources'
import {
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type SpanExporter
} from '@opentelemetry/sdk-trace'
import { traceUndici } from './outbound.ts'

export interface SdkOptions {
  service: string
  version?: string | undefined
  endpoint: string
  ratio: number
  scheduleDelayMs: number
  /** Told when exports start failing and when they work again (not every failed batch). */
  report: (failing: boolean) => void
}

/** Longest a closing app waits for its last spans to go out. */
const FLUSH_ON_CLOSE_MS = 3000
const EXPORT_TIMEOUT_MS = 5000

// One context manager and one set of channel subscriptions per process, whatever number of apps trace in it.
let users = 0
let unsubscribe: (() => void) | undefined

function acquireProcessHooks (): void {
  if (users++ > 0) return
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  unsubscribe = traceUndici()
}

function releaseProcessHooks (): void {
  if (--users > 0) return
  unsubscribe?.()
  unsubscribe = undefined
  context.disable()
}

/** The exporter, telling `report` when exports start and stop failing. */
function reportingExporter (inner: SpanExporter, report: (failing: boolean) => void): SpanExporter {
  let failing = false
  return {
    export (spans, done) {
      inner.export(spans, (result) => {
        const failed = result.code !== ExportResultCode.SUCCESS
        if (failed !== failing) report(failed)
        failing = failed
        done(result)
      })
    },
    shutdown: async () => { await inner.shutdown() },
    forceFlush: async () => { await inner.forceFlush?.() }
  }
}

/** An app's own tracer provider exporting OTLP/HTTP (JSON) to `<endpoint>/v1/traces`, in batches. */
export function startSdk (options: SdkOptions): { tracer: Tracer, close: () => Promise<void> } {
  const exporter = new OTLPTraceExporter({
    url: `${options.endpoint.replace(/\/+$/, '')}/v1/traces`,
    timeoutMillis: EXPORT_TIMEOUT_MS
  })
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      'service.name': options.service,
      ...(options.version !== undefined ? { 'service.version': options.version } : {})
    }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(options.ratio) }),
    spanProcessors: [new BatchSpanProcessor({
      exporter: reportingExporter(exporter, options.report),
      scheduledDelayMillis: options.scheduleDelayMs,
      exportTimeoutMillis: EXPORT_TIMEOUT_MS
    })]
  })
  acquireProcessHooks()
  let closed: Promise<void> | undefined
  return {
    tracer: provider.getTracer('@impact/service-kit'),
    async close () {
      closed ??= (async () => {
        releaseProcessHooks()
        let timer: NodeJS.Timeout | undefined
        const deadline = new Promise<void>((resolve) => { timer = setTimeout(resolve, FLUSH_ON_CLOSE_MS) })
        await Promise.race([provider.shutdown().catch(() => {}), deadline])
        clearTimeout(timer)
      })()
      await closed
    }
  }
}
