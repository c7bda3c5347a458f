import { createApp, type App } from '@impact/service-kit'
import { splitList, upstreamUrls, type Config } from './config.ts'
import { StatusBodySchema, statusNotFoundHandler } from './errors.ts'
import { gatewayRoutes } from './routes/gateway/index.ts'
import { loadDescriptors } from './services/descriptor-source.ts'
import { createOptionReader } from './services/descriptors.ts'
import { createJsonWriter } from './services/json-writer.ts'
import { createResponseCache } from './services/response-cache.ts'
import { buildCatalog } from './services/route-catalog.ts'
import { createUpstreamPool } from './services/upstream-pool.ts'

export const APP_NAME = 'chain-rest-gateway'

const RESERVED = /^\/(health(\/.*)?|docs(\/.*)?)?$/

/** Builds chain-rest-gateway unlistened; tests and server.ts share it. Routes come from the node's descriptors. */
export async function buildApp (config: Config): Promise<App> {
  const pool = createUpstreamPool({
    urls: upstreamUrls(config),
    maxReceiveBytes: config.CHAIN_GRPC_MAX_RECEIVE_BYTES,
    reconnectBackoffMs: config.CHAIN_RECONNECT_BACKOFF_MS,
    healthIntervalMs: config.CHAIN_HEALTH_INTERVAL_MS
  })
  let descriptors
  try {
    descriptors = await loadDescriptors(
      config.CHAIN_DESCRIPTOR_SOURCE,
      pool,
      Math.min(config.CHAIN_GRPC_TIMEOUT_MS, 3000)
    )
  } catch (error) {
    pool.close()
    throw error
  }
  const options = createOptionReader()
  const catalog = buildCatalog(descriptors.registry, options, {
    services: splitList(config.CHAIN_SERVICES),
    aliases: splitList(config.CHAIN_ROUTE_ALIASES).map((entry) => entry.split('=') as [string, string]),
    reserved: (path) => RESERVED.test(path)
  })

  const routeSource = descriptors.source === 'reflection' ? 'node\'s reflection service' : 'bundled descriptor set'
  const app = await createApp({
    config,
    name: APP_NAME,
    docs: {
      title: 'Chain REST gateway',
      version: '0.1.0',
      description: 'HTTP GET routes transcoded onto the gRPC query services of a Cosmos-SDK node (ixo). ' +
        `${catalog.routes.length} routes from the ${routeSource}. ` +
        'Errors are google.rpc.Status bodies { code, message, details } with the gRPC code; ' +
        'x-cosmos-block-height pins a query to a height.',
      ...(config.CHAIN_API_KEYS !== undefined
        ? { securitySchemes: { apiKey: { type: 'http', scheme: 'bearer' } } }
        : {})
    },
    notFoundHandler: statusNotFoundHandler,
    maxParamLength: config.CHAIN_MAX_PARAM_LENGTH,
    cors: {
      methods: ['GET', 'HEAD'],
      exposedHeaders: ['x-request-id', 'x-cosmos-block-height', 'grpc-metadata-x-cosmos-block-height'],
      credentials: false
    },
    health: {
      landing: {
        message: 'chain-rest-gateway is running',
        extra: () => ({ descriptors: descriptors.source, routes: catalog.routes.length })
      },
      checks: {
        chain: async () => {
          const states = await pool.probeAll()
          if (!states.some(Boolean)) throw new Error('no chain node is reachable')
        }
      },
      report: () =>
        Object.fromEntries(pool.status().map(({ url, up }) => [`upstream ${url}`, up ? 'connected' : 'disconnected']))
    }
  })
  app.log.info(
    { source: descriptors.source, routes: catalog.routes.length, skipped: catalog.skipped.length },
    'chain routes derived from descriptors'
  )
  for (const note of descriptors.notes) app.log.warn(note)
  app.addHook('onClose', async () => { pool.close() })
  app.addSchema(StatusBodySchema)

  const cache = createResponseCache({
    enabled: config.CHAIN_CACHE_ENABLED,
    latestTtlMs: config.CHAIN_CACHE_LATEST_TTL_MS,
    maxEntries: config.CHAIN_CACHE_MAX_ENTRIES,
    maxBytes: config.CHAIN_CACHE_MAX_BYTES
  })
  await app.register(gatewayRoutes, {
    catalog,
    deps: {
      pool,
      cache,
      writer: createJsonWriter(descriptors.registry, options.traits),
      timeoutMs: config.CHAIN_GRPC_TIMEOUT_MS
    },
    traitsOf: options.traits,
    apiKeys: splitList(config.CHAIN_API_KEYS)
  })
  pool.start()
  return app
}
