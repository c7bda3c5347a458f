import type { FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify'
import { nameRequestRoute, UNMATCHED_ROUTE, type FastifyPluginAsyncTypebox } from '@impact/service-kit'
import {
  ChainStatusError,
  GRPC_HEIGHT_RESPONSE_HEADER,
  GrpcCode,
  HEIGHT_RESPONSE_HEADER,
  notFoundError,
  notImplementedError,
  statusErrorHandler
} from '../../errors.ts'
import { apiKeyPlugin } from '../../plugins/api-key.ts'
import { isFresh, setCacheHeaders, etagOf } from './http-cache.ts'
import { broadcastRoutes, type BroadcastOptions } from './broadcast.ts'
import { blockStreamRoutes, type BlockStreamOptions } from './block-stream.ts'
import { bindingValues } from '../../services/path-template.ts'
import type { ResponseCache } from '../../services/response-cache.ts'
import type { Served } from '../../services/served.ts'
import { requestedHeight } from '../../services/transcoder.ts'

export interface GatewayRoutesOptions {
  /** The catalogue being served right now (swapped on reflection and chain upgrades); undefined: not ready. */
  served: () => Served | undefined
  cache: ResponseCache
  apiKeys: string[]
  stream: BlockStreamOptions
  broadcast: Omit<BroadcastOptions, 'served' | 'shared'>
  /** max-age of latest-height answers, in seconds (0: revalidate). */
  latestMaxAgeS: number
}

/** Methods that would carry a transaction or a change: answered 501 like upstream, never forwarded. */
const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const

// Requests are read with grpc-gateway's own rules and answers are JSON already written from the
// descriptors, so Ajv and fast-json-stringify stay out; /docs is generated from the catalogue.
const shared: RouteShorthandOptions = {
  schema: { hide: true },
  validatorCompiler: () => () => true,
  serializerCompiler: () => (data: unknown) => (typeof data === 'string' ? data : JSON.stringify(data))
}

export const notReadyError = () => new ChainStatusError(
  GrpcCode.UNAVAILABLE,
  'chain routes are not loaded yet: waiting for the node\'s reflection service'
)

/**
 * Every google.api.http GET rule of the current catalogue, behind one wildcard route: Fastify's own
 * routes are fixed once it listens, while the catalogue changes with the node (reflection arriving
 * late, chain upgrades). Errors answer in the google.rpc.Status contract (own error handler).
 */
export const gatewayRoutes: FastifyPluginAsyncTypebox<GatewayRoutesOptions> = async (app, options) => {
  app.setErrorHandler(statusErrorHandler)
  if (options.apiKeys.length > 0) await app.register(apiKeyPlugin, { keys: options.apiKeys })
  const cache = options.cache.enabled ? options.cache : undefined
  await blockStreamRoutes(app, options.stream)
  await broadcastRoutes(app, { ...options.broadcast, served: options.served, shared })

  app.route({
    ...shared,
    method: 'GET',
    url: '/*',
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const served = options.served()
      if (served === undefined) throw notReadyError()
      const height = requestedHeight(request.headers)
      const match = served.table.match(request.url)
      // Its Fastify route is the wildcard: metrics and the span name the template matched.
      nameRequestRoute(request, match?.entry.route.compiled.template ?? UNMATCHED_ROUTE)
      if (match === undefined) throw notFoundError()
      // A URL answered before is served from the cache without parsing it again.
      const rawKey = cache !== undefined ? `${height} ${request.url}` : undefined
      let answer = rawKey !== undefined ? cache?.peek(rawKey) : undefined
      if (answer === undefined) {
        const values = bindingValues(match.entry.route.compiled.bindings, match.params)
        if (values === undefined) throw notFoundError()
        // A pinned answer never changes: a client holding it is answered without asking the node.
        if (height !== '' && isFresh(request, etagOf(height))) {
          setCacheHeaders(reply, height, true, options.latestMaxAgeS)
          return await reply.code(304).send()
        }
        answer = await match.entry.transcode(values, request.query as Record<string, unknown>, height, rawKey)
      }
      if (answer.height !== undefined) {
        reply.header(HEIGHT_RESPONSE_HEADER, answer.height)
        reply.header(GRPC_HEIGHT_RESPONSE_HEADER, answer.height)
      }
      const validator = height !== '' ? height : answer.height
      if (validator !== undefined) {
        setCacheHeaders(reply, validator, height !== '', options.latestMaxAgeS)
        if (isFresh(request, etagOf(validator))) return await reply.code(304).send()
      }
      return await reply.type('application/json').send(answer.body)
    }
  })

  app.route({
    ...shared,
    method: [...WRITE_METHODS],
    url: '/*',
    handler: async (request: FastifyRequest) => {
      const served = options.served()
      if (served === undefined) throw notReadyError()
      throw served.table.match(request.url) !== undefined ? notImplementedError() : notFoundError()
    }
  })
}
