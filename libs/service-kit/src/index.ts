export { createApp, type App, type CreateAppOptions } from './create-app.ts'
export {
  BaseConfigSchema,
  baseConfigProperties,
  loadConfig,
  parseOrigins,
  ConfigError,
  PEER_URLS,
  peerUrlProperties,
  type BaseConfig,
  type PeerUrlKey
} from './config.ts'
export { defineError, errorHandler, notFoundHandler, toErrorBody } from './errors.ts'
export { loggerOptions, REDACT_PATHS, SECRET_HEADERS } from './logger.ts'
export { registerHealthRoutes, type HealthCheck, type HealthOptions } from './plugins/health.ts'
export { runServer, type RunServerOptions } from './run-server.ts'
export { genReqId } from './plugins/request-id.ts'
export type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
export { safeEqual, readBearerToken, staticBearerGuard, AuthMissingError, AuthInvalidError } from './auth.ts'
export {
  METRICS_PORT_OFFSET,
  UNMATCHED_ROUTE,
  MetricsPortError,
  MetricsPortInUseError,
  listenWithMetrics,
  metricsOf,
  queryTimer,
  startMetricsListener,
  timedSharedState,
  Counter,
  Gauge,
  Histogram,
  type AppMetrics,
  type Registry
} from './metrics/index.ts'
export { createTracing, TRACING_OFF, type Tracing, type SpanOptions } from './tracing/tracing.ts'
export { SpanKind } from '@opentelemetry/api'
export { startOutboundSpan, type OutboundSpan } from './tracing/outbound.ts'
export { tracingOf, traceLogFields } from './tracing/server-spans.ts'
export { activeTraceparent } from './tracing/context.ts'
export { nameRequestRoute } from './request-route.ts'
export { tracingConfigProperties, type TracingConfig } from './tracing/config.ts'
export {
  registerAudit, type AuditEvent, type AuditOptions, type AuditSink, type AuditTrail
} from './audit/audit-trail.ts'
export { auditRoutes, AuditEntrySchema, AuditPageSchema, type AuditRoutesOptions } from './audit/routes.ts'
export { auditConfigProperties } from './audit/config.ts'
