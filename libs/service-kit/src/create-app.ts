import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyServerOptions,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type RawServerDefault
} from 'fastify'
import cors, { type FastifyCorsOptions } from '@fastify/cors'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { DestinationStream } from 'pino'
import { errorHandler, notFoundHandler } from './errors.ts'
import { loggerOptions } from './logger.ts'
import { registerMetrics } from './metrics/app-metrics.ts'
import { registerDocs, type DocsOptions } from './plugins/docs.ts'
import { registerHealthRoutes, type HealthOptions } from './plugins/health.ts'
import { acceptEmptyJsonBodies } from './plugins/json-body.ts'
import { commonHeaders, genReqId } from './plugins/request-id.ts'
import type { TracingConfig } from './tracing/config.ts'
import { traceLogFields, traceRequests } from './tracing/server-spans.ts'
import { createTracing } from './tracing/tracing.ts'
import { DEFAULT_TRUSTED_PROXIES, parseOrigins, type BaseConfig } from './config.ts'
import { validationOptions } from './validation.ts'

const REQUEST_LOG_LEVELS = new Set(['trace', 'debug', 'info'])

export type App =
  FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>

export interface CreateAppOptions {
  config: Pick<BaseConfig, 'NODE_ENV' | 'LOG_LEVEL' | 'TRUST_PROXY_ENABLED'> & {
    TRUST_PROXY_ADDRESSES?: string
    CORS_ORIGIN?: string | undefined
    LOG_PRETTY?: boolean
    /** 0 turns metrics off; otherwise the listener's port is decided when the app listens. */
    METRICS_PORT?: number | undefined
  } & TracingConfig
  /** The app's name: `service.name` of its traces. */
  name?: string
  docs: DocsOptions
  health?: Omit<HealthOptions, 'environment'>
  /** CORS beyond the origins of `CORS_ORIGIN`; `false` never enables CORS. Off when no origin is configured. */
  cors?: false | Omit<FastifyCorsOptions, 'origin'> & { defaultOrigin?: string }
  logger?: { redact?: string[], stream?: DestinationStream }
  bodyLimit?: number
  /** Answers unknown routes in the app's own contract (default: the platform's JSON 404). */
  notFoundHandler?: (request: FastifyRequest, reply: FastifyReply) => unknown
  /** Longest path parameter the router accepts (find-my-way default 100); longer ones get the 404. */
  maxParamLength?: number
  /** Answers malformed URLs (FST_ERR_BAD_URL), which reach no route, in the app's own contract. */
  frameworkErrors?: FastifyServerOptions['frameworkErrors']
  /**
   * Requests arriving while the server drains get Fastify's JSON 503 (default); `false` serves them with
   * `Connection: close`, for callers that cannot read a JSON error (USSD aggregators).
   */
  return503OnClosing?: boolean
}

// `silent` gives Fastify no logger: with any logger it builds a request logger and hooks every response's `finish`.
function logging (
  level: string,
  pretty: boolean | undefined,
  extra: CreateAppOptions['logger'],
  traced: boolean
): FastifyServerOptions {
  if (level === 'silent') return { logger: false }
  return {
    logger: loggerOptions({ level, pretty, ...extra, ...(traced ? { mixin: traceLogFields } : {}) }),
    // Fastify's per-request lines are written at info; above that level they would be built per request and dropped.
    logController: new LogController({ disableRequestLogging: !REQUEST_LOG_LEVELS.has(level) })
  }
}

// Never `true`: trusting everyone takes the leftmost X-Forwarded-For entry, which the client writes.
const trustedProxies = (config: CreateAppOptions['config']): FastifyServerOptions['trustProxy'] =>
  config.TRUST_PROXY_ENABLED ? config.TRUST_PROXY_ADDRESSES ?? DEFAULT_TRUSTED_PROXIES : false

/** A Fastify instance with the platform's logging, request ids, error contract, CORS, docs and health; unlistened. */
export async function createApp (options: CreateAppOptions): Promise<App> {
  const { config } = options
  const tracingOn = config.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined
  const app = Fastify({
    ...logging(config.LOG_LEVEL, config.LOG_PRETTY, options.logger, tracingOn),
    genReqId,
    trustProxy: trustedProxies(config),
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    // Slow clients must not hold sockets forever; SSE routes raise their own limits.
    requestTimeout: 120_000,
    connectionTimeout: 0,
    return503OnClosing: options.return503OnClosing ?? true,
    forceCloseConnections: 'idle',
    ...(options.maxParamLength !== undefined ? { routerOptions: { maxParamLength: options.maxParamLength } } : {}),
    ...(options.frameworkErrors !== undefined ? { frameworkErrors: options.frameworkErrors } : {}),
    ...validationOptions({ coerceTypes: 'array', useDefaults: true, removeAdditional: false, allErrors: false })
  }).withTypeProvider<TypeBoxTypeProvider>()

  // First, so the request metrics see every route and the 404s.
  registerMetrics(app, { port: config.METRICS_PORT })
  app.setErrorHandler(errorHandler)
  app.setNotFoundHandler(options.notFoundHandler ?? notFoundHandler)

  const tracing = await createTracing({ service: options.name ?? 'app', config, log: app.log })
  app.decorate('tracing', tracing)
  app.addHook('onClose', tracing.close)
  // Before every other hook, so they run inside the request's span.
  traceRequests(app, tracing)
  commonHeaders(app)
  acceptEmptyJsonBodies(app)
  try {
    await registerCorsDocsAndHealth(app, options)
  } catch (error) {
    await tracing.close()
    throw error
  }
  return app
}

async function registerCorsDocsAndHealth (app: App, options: CreateAppOptions): Promise<void> {
  const { config } = options
  const origin = parseOrigins(config.CORS_ORIGIN ?? (options.cors !== false ? options.cors?.defaultOrigin : undefined))
  if (options.cors !== false && origin !== undefined) {
    const { defaultOrigin: _ignored, ...corsOptions } = options.cors ?? {}
    // Credentials only with explicit origins: a wildcard with credentials would let any site act as the user.
    const credentials = origin !== '*' && (corsOptions.credentials ?? true)
    await app.register(cors, { ...corsOptions, origin, credentials })
  }

  await registerDocs(app, options.docs)
  registerHealthRoutes(app, { environment: config.NODE_ENV, ...options.health })
}
