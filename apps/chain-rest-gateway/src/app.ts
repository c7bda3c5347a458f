import { createApp, metricsOf, type App } from '@impact/service-kit'
import { createSharedState } from '@impact/shared-state'
import { earliestHeights, splitList, upstreamMetadata, upstreamTls, upstreamUrls, type Config } from './config.ts'
import { StatusBodySchema, statusErrorHandler, statusNotFoundHandler } from './errors.ts'
import { registerProtection } from './plugins/protection.ts'
import { BLOCK_STREAM_PATH } from './routes/gateway/block-stream.ts'
import { BROADCAST_ROUTES } from './routes/gateway/broadcast.ts'
import { gatewayRoutes } from './routes/gateway/index.ts'
import { createHealthOptions } from './routes/health.ts'
import { createBlockFeed } from './services/block-feed.ts'
import { LATEST_BLOCK_PATH } from './services/block-height.ts'
import { renderLatestBlock } from './services/block-render.ts'
import { reflectDescriptors, reflectWithin } from './services/descriptor-source.ts'
import { createOptionReader } from './services/descriptors.ts'
import { createLiveCatalog } from './services/live-catalog.ts'
import { createMethodFilter } from './services/method-filter.ts'
import { openapiPaths } from './services/openapi-paths.ts'
import { createChainMetrics, type ChainMetrics } from './services/metrics.ts'
import { createResponseCache } from './services/response-cache.ts'
import { buildServed, type Served } from './services/served.ts'
import { createUpstreamPool } from './services/upstream-pool.ts'

export const APP_NAME = 'chain-rest-gateway'

const LATEST_BLOCK_METHOD = LATEST_BLOCK_PATH.slice(1)
const RESERVED = /^\/(health(\/.*)?|docs(\/.*)?)?$/
/** Start-up waits this long for a node that is not up yet before serving without reflection. */
const START_WAIT_MS = 3000

/** Builds chain-rest-gateway unlistened; tests and server.ts share it. Routes come from the node's descriptors. */
export async function buildApp (config: Config, setup: { statePrefix?: string } = {}): Promise<App> {
  const prefix = setup.statePrefix ?? `${APP_NAME}:`
  // The pool and cache exist before the app (routes come from the node): they report once the metrics do.
  const reportTo: { metrics?: ChainMetrics } = {}
  const pool = createUpstreamPool({
    urls: upstreamUrls(config),
    maxReceiveBytes: config.CHAIN_GRPC_MAX_RECEIVE_BYTES,
    reconnectBackoffMs: config.CHAIN_RECONNECT_BACKOFF_MS,
    healthIntervalMs: config.CHAIN_HEALTH_INTERVAL_MS,
    maxLagBlocks: config.CHAIN_MAX_LAG_BLOCKS,
    earliestHeights: earliestHeights(config),
    tls: upstreamTls(config),
    metadata: upstreamMetadata(config),
    onCall: (...call) => { reportTo.metrics?.call(...call) }
  })
  // Redis when REDIS_URL is set: rate limits and cached answers shared by every replica.
  const state = createSharedState({ url: config.REDIS_URL, prefix })
  const broadcastUrls = splitList(config.CHAIN_BROADCAST_URL)
  // Its own nodes: transactions may go to a trusted node other than the query nodes.
  const broadcastPool = broadcastUrls.length === 0
    ? undefined
    : createUpstreamPool({
      urls: broadcastUrls,
      maxReceiveBytes: config.CHAIN_GRPC_MAX_RECEIVE_BYTES,
      reconnectBackoffMs: config.CHAIN_RECONNECT_BACKOFF_MS,
      healthIntervalMs: 0,
      tls: upstreamTls(config),
      metadata: upstreamMetadata(config)
    })
  const cache = createResponseCache({
    enabled: config.CHAIN_CACHE_ENABLED,
    shared: state.kind === 'redis' && config.CHAIN_CACHE_SHARED ? state : undefined,
    sharedPinnedTtlMs: config.CHAIN_CACHE_SHARED_PINNED_TTL_MS,
    latestTtlMs: config.CHAIN_CACHE_LATEST_TTL_MS,
    maxEntries: config.CHAIN_CACHE_MAX_ENTRIES,
    maxBytes: config.CHAIN_CACHE_MAX_BYTES,
    onLookup: (result) => { reportTo.metrics?.cacheLookup(result) }
  })
  const options = createOptionReader()
  const docsOf = new WeakMap<Served, Record<string, unknown>>()
  const apiKeys = splitList(config.CHAIN_API_KEYS)
  const methods = createMethodFilter(splitList(config.CHAIN_METHODS_ALLOW), splitList(config.CHAIN_METHODS_DENY))
  const streamEnabled = methods(LATEST_BLOCK_METHOD)

  const app = await createApp({
    config,
    name: APP_NAME,
    docs: {
      title: 'Chain REST gateway',
      version: '0.1.0',
      description: 'HTTP GET routes transcoded onto the gRPC query services of a Cosmos-SDK node (ixo). ' +
        'Errors are google.rpc.Status bodies { code, message, details } with the gRPC code; ' +
        'x-cosmos-block-height pins a query to a height.',
      ...(apiKeys.length > 0 ? { securitySchemes: { apiKey: { type: 'http', scheme: 'bearer' } } } : {}),
      transformSpecification: (document) => {
        const served = live.current
        if (served === undefined) return document
        let paths = docsOf.get(served)
        if (paths === undefined) {
          paths = openapiPaths(served, options.traits, {
            streamPath: streamEnabled ? BLOCK_STREAM_PATH : undefined,
            broadcast: broadcastPool !== undefined ? BROADCAST_ROUTES : []
          })
          docsOf.set(served, paths)
        }
        const info = document.info as Record<string, unknown>
        const origin = served.source === 'reflection' ? 'node\'s reflection service' : 'bundled descriptor set'
        return {
          ...document,
          info: { ...info, description: `${String(info.description)} ${served.table.size} routes from the ${origin}.` },
          paths: { ...(document.paths as Record<string, unknown>), ...paths }
        }
      }
    },
    notFoundHandler: statusNotFoundHandler,
    // Malformed URLs never reach a route: answered in the same google.rpc.Status contract.
    frameworkErrors: statusErrorHandler,
    maxParamLength: config.CHAIN_MAX_PARAM_LENGTH,
    cors: {
      methods: broadcastPool !== undefined ? ['GET', 'HEAD', 'POST'] : ['GET', 'HEAD'],
      exposedHeaders: [
        'x-request-id', 'x-cosmos-block-height', 'grpc-metadata-x-cosmos-block-height', 'etag', 'retry-after'
      ],
      credentials: false
    },
    health: createHealthOptions({ mode: config.CHAIN_DESCRIPTOR_SOURCE, served: () => live.current, pool, apiKeys })
  }).catch(async (error: unknown) => {
    pool.close()
    broadcastPool?.close()
    await state.close()
    throw error
  })
  reportTo.metrics = createChainMetrics(metricsOf(app).registry, pool.status)

  const live = createLiveCatalog<Served>({
    mode: config.CHAIN_DESCRIPTOR_SOURCE,
    initial: async () => await reflectWithin(pool, Math.min(config.CHAIN_GRPC_TIMEOUT_MS, START_WAIT_MS)),
    reflect: async () => await reflectDescriptors(pool, config.CHAIN_GRPC_TIMEOUT_MS),
    build: (set) => buildServed(set, {
      pool,
      cache,
      options,
      timeoutMs: config.CHAIN_GRPC_TIMEOUT_MS,
      maxParamLength: config.CHAIN_MAX_PARAM_LENGTH,
      maxPageLimit: config.CHAIN_MAX_PAGE_LIMIT,
      catalog: {
        services: splitList(config.CHAIN_SERVICES),
        methods,
        aliases: splitList(config.CHAIN_ROUTE_ALIASES).map((entry) => entry.split('=') as [string, string]),
        reserved: (path) => RESERVED.test(path)
      }
    }),
    retryMaxMs: config.CHAIN_REFLECTION_RETRY_MAX_MS,
    refreshMs: config.CHAIN_DESCRIPTOR_REFRESH_MS,
    onSwap: (next, previous) => {
      // Answers rendered with the previous descriptors may lack fields the new ones have.
      if (previous !== undefined) cache.clear()
      cache.useDescriptors(next.fingerprint)
      const { routes, skipped } = next.catalog
      app.log.info(
        { source: next.source, routes: routes.length, skipped: skipped.length, previous: previous?.source },
        previous === undefined ? 'chain routes derived from descriptors' : 'chain routes replaced'
      )
      for (const note of next.notes) app.log.warn(note)
    },
    onFailure: (reason, failures) => {
      const fields = { reason, failures, serving: live.current?.source ?? 'nothing' }
      if (failures === 1) app.log.warn(fields, 'node reflection unavailable; retrying in the background')
      else app.log.debug(fields, 'node reflection still unavailable')
    }
  })
  const feed = createBlockFeed({
    pool,
    intervalMs: config.CHAIN_STREAM_POLL_MS,
    timeoutMs: config.CHAIN_GRPC_TIMEOUT_MS,
    resumeBlocks: config.CHAIN_STREAM_RESUME_BLOCKS,
    render: (bytes, height) => renderLatestBlock(live.current, bytes, height),
    onError: (error) => app.log.debug({ reason: (error as Error).message }, 'block stream poll failed')
  })
  app.addHook('onClose', async () => {
    feed.close()
    live.close()
    pool.close()
    broadcastPool?.close()
    await state.close()
  })
  await registerProtection(app, config, state, prefix, apiKeys)
  app.addSchema(StatusBodySchema)
  await app.register(gatewayRoutes, {
    served: () => live.current,
    cache,
    apiKeys,
    broadcast: { pool: broadcastPool, timeoutMs: config.CHAIN_GRPC_TIMEOUT_MS },
    latestMaxAgeS: Math.floor(config.CHAIN_CACHE_LATEST_TTL_MS / 1000),
    stream: { feed, maxBufferBytes: config.CHAIN_STREAM_MAX_BUFFER_BYTES, enabled: streamEnabled }
  })
  try {
    await live.start()
  } catch (error) {
    await app.close()
    throw error
  }
  pool.start()
  return app
}
