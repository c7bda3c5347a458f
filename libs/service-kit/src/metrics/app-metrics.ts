import type { FastifyInstance } from 'fastify'
import { collectDefaultMetrics, Registry } from 'prom-client'
import { metricsPortFor } from './config.ts'
import { observeHttpRequests } from './http-metrics.ts'
import { listenForScrapes, type MetricsListener } from './listener.ts'

/** An app's metrics: its own registry (never prom-client's global one, so apps in one process stay apart). */
export interface AppMetrics {
  /** False with METRICS_PORT=0: nothing is collected per request and no listener opens. */
  readonly enabled: boolean
  readonly registry: Registry
  readonly url: string | undefined
}

const DECORATOR = 'metrics'

let processMetrics: Registry | undefined
// Once per process: they describe the process, and each collection keeps a GC observer and timer running for good.
function processRegistry (): Registry {
  if (processMetrics === undefined) {
    processMetrics = new Registry()
    collectDefaultMetrics({ register: processMetrics })
  }
  return processMetrics
}

interface State extends AppMetrics {
  url: string | undefined
  configuredPort: number | undefined
  listener: MetricsListener | undefined
}

/** The listener opens later, with `startMetricsListener`, once the app has its port. */
export function registerMetrics (app: FastifyInstance, options: { port?: number | undefined }): AppMetrics {
  const registry = new Registry()
  const enabled = options.port !== 0
  const state: State = { enabled, registry, url: undefined, configuredPort: options.port, listener: undefined }
  if (enabled) {
    const shared = processRegistry()
    for (const { name } of shared.getMetricsAsArray()) {
      const metric = shared.getSingleMetric(name)
      if (metric !== undefined) registry.registerMetric(metric)
    }
    observeHttpRequests(app, registry)
  }
  app.decorate(DECORATOR, state)
  app.addHook('onClose', async () => {
    const listener = state.listener
    state.listener = undefined
    state.url = undefined
    await listener?.close()
  })
  return state
}

export const metricsOf = (app: FastifyInstance): AppMetrics => app.getDecorator<AppMetrics>(DECORATOR)

/** Same host, METRICS_PORT or the app's port + 1000; rejects with MetricsPortInUseError on a taken port. */
export async function startMetricsListener (
  app: FastifyInstance,
  at: { host: string, port: number }
): Promise<string | undefined> {
  const state = app.getDecorator<State>(DECORATOR)
  const port = metricsPortFor(state.configuredPort, at.port)
  if (port === false || state.listener !== undefined) return state.url
  state.listener = await listenForScrapes(state.registry, at.host, port)
  state.url = state.listener.url
  return state.url
}

/** `app.listen` and then the metrics listener; a metrics failure closes the app again. */
export async function listenWithMetrics (
  app: FastifyInstance,
  at: { host: string, port: number }
): Promise<{ address: string, metricsUrl: string | undefined }> {
  const address = await app.listen(at)
  try {
    return { address, metricsUrl: await startMetricsListener(app, at) }
  } catch (error) {
    await app.close()
    throw error
  }
}
