import { Type } from '@sinclair/typebox'

/** How far above the app's port the metrics listener sits when METRICS_PORT is unset. */
export const METRICS_PORT_OFFSET = 1000

/** The metrics key of every app's config schema (spread into `baseConfigProperties`). */
export const metricsConfigProperties = () => ({
  METRICS_PORT: Type.Optional(Type.Integer({
    minimum: 0,
    maximum: 65535,
    description: 'Port of the Prometheus metrics listener (GET /metrics), on HOST beside the app; ' +
      `default PORT + ${METRICS_PORT_OFFSET} (an ephemeral port when PORT is 0); 0 turns metrics off`
  }))
})

/** The metrics listener cannot open where it was told to (a clear message for the operator). */
export class MetricsPortError extends Error {
  override name = 'MetricsPortError'
}

/**
 * The port the metrics listener takes next to an app listening on `appPort`: `false` when turned off,
 * 0 (ephemeral) beside an ephemeral app port.
 */
export function metricsPortFor (configured: number | undefined, appPort: number): number | false {
  if (configured !== undefined) return configured === 0 ? false : configured
  if (appPort === 0) return 0
  const port = appPort + METRICS_PORT_OFFSET
  if (port > 65535) {
    throw new MetricsPortError(
      `PORT ${appPort} + ${METRICS_PORT_OFFSET} is no port: set METRICS_PORT (0 turns metrics off)`)
  }
  return port
}

/** Config issues of the metrics port: an app port whose default metrics port would be no port. */
export function metricsPortIssues (config: { PORT?: unknown, METRICS_PORT?: unknown }): string[] {
  const { PORT: port, METRICS_PORT: metrics } = config
  if (metrics !== undefined || typeof port !== 'number' || port + METRICS_PORT_OFFSET <= 65535) return []
  return [`METRICS_PORT must be set when PORT is above ${65535 - METRICS_PORT_OFFSET} (its default is PORT + ` +
    `${METRICS_PORT_OFFSET}; 0 turns metrics off)`]
}
