import { createApp, type App } from '@impact/service-kit'
import { earliestHeights, splitList, upstreamUrls, type Config } from './config.ts'
import { StatusBodySchema, statusErrorHandler, statusNotFoundHandler } from './errors.ts'
import { gatewayRoutes } from './routes/gateway/index.ts'
import { createHealthOptions } from './routes/health.ts'
import { reflectDescriptors, reflectWithin } from './services/descriptor-source.ts'
import { createOptionReader } from './services/descriptors.ts'
import { createLiveCatalog } from './services/live-catalog.ts'
import { openapiPaths } from './services/openapi-paths.ts'
import { createResponseCache } from './services/response-cache.ts'
import { buildServed, type Served } from './services/served.ts'
import { createUpstreamPool } from './services/upstream-pool.ts'

export const APP_NAME = 'chain-rest-gateway'

const RESERVED = /^\/(health(\/.*)?|docs(\/.*)?)?$/
/** Start-up waits this long for a node that is not up yet before serving without reflection. */
const START_WAIT_MS = 3000

/** Builds chain-rest-gateway unlistened; tests and server.ts share it. Routes come from the node's descriptors. */
export async function buildApp (config: Config): Promise<App> {
  const pool = createUpstreamPool({
    urls: upstreamUrls(config),
    maxReceiveBytes: config.CHAIN_GRPC_MAX_RECEIVE_BYTES,
    reconnectBackoffMs: config.CHAIN_RECONNECT_BACKOFF_MS,
    healthIntervalMs: config.CHAIN_HEALTH_INTERVAL_MS,
    maxLagBlocks: config.CHAIN_MAX_LAG_BLOCKS,
    earliestHeights: earliestHeights(config)
  })
  const cache = createResponseCache({
    enabled: config.CHAIN_CACHE_ENABLED,
    latestTtlMs: config.CHAIN_CACHE_LATEST_TTL_MS,
    maxEntries: config.CHAIN_CACHE_MAX_ENTRIES,
    maxBytes: config.CHAIN_CACHE_MAX_BYTES
  })
  const options = createOptionReader()
  const docsOf = new WeakMap<Served, Record<string, unknown>>()
  const apiKeys = splitList(config.CHAIN_API_KEYS)

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
          paths = openapiPaths(served.catalog, options.traits)
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
      methods: ['GET', 'HEAD'],
      exposedHeaders: ['x-request-id', 'x-cosmos-block-height', 'grpc-metadata-x-cosmos-block-height'],
      credentials: false
    },
    health: createHealthOptions({ mode: config.CHAIN_DESCRIPTOR_SOURCE, served: () => live.current, pool, apiKeys })
  })

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
        aliases: splitList(config.CHAIN_ROUTE_ALIASES).map((entry) => entry.split('=') as [string, string]),
        reserved: (path) => RESERVED.test(path)
      }
    }),
    retryMaxMs: config.CHAIN_REFLECTION_RETRY_MAX_MS,
    refreshMs: config.CHAIN_DESCRIPTOR_REFRESH_MS,
    onSwap: (next, previous) => {
      // Answers rendered with the previous descriptors may lack fields the new ones have.
      if (previous !== undefined) cache.clear()
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
  app.addHook('onClose', async () => {
    live.close()
    pool.close()
  })
  app.addSchema(StatusBodySchema)
  await app.register(gatewayRoutes, { served: () => live.current, cache, apiKeys })
  try {
    await live.start()
  } catch (error) {
    await app.close()
    throw error
  }
  pool.start()
  return app
}
