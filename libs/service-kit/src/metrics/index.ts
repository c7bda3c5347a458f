export { METRICS_PORT_OFFSET, MetricsPortError, metricsConfigProperties, metricsPortFor } from './config.ts'
export { UNMATCHED_ROUTE } from './http-metrics.ts'
export { MetricsPortInUseError } from './listener.ts'
export {
  listenWithMetrics, metricsOf, registerMetrics, startMetricsListener, type AppMetrics
} from './app-metrics.ts'
export { timedSharedState } from './shared-state.ts'
export { queryTimer } from './database.ts'
export { Counter, Gauge, Histogram, Registry, type CounterConfiguration } from 'prom-client'
