import type { DescField } from '@bufbuild/protobuf'
import type { FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify'
import type { App, FastifyPluginAsyncTypebox } from '@impact/service-kit'
import {
  GRPC_HEIGHT_RESPONSE_HEADER, HEIGHT_RESPONSE_HEADER, notFoundError, notImplementedError, statusErrorHandler
} from '../../errors.ts'
import { apiKeyPlugin } from '../../plugins/api-key.ts'
import type { FieldTraits } from '../../services/descriptors.ts'
import { createSchemaBuilder } from '../../services/openapi.ts'
import { bindingValues } from '../../services/path-template.ts'
import type { Catalog, GatewayRoute } from '../../services/route-catalog.ts'
import { createTranscoder, requestedHeight, type TranscoderDeps } from '../../services/transcoder.ts'

export interface GatewayRoutesOptions {
  catalog: Catalog
  deps: TranscoderDeps
  traitsOf: (field: DescField) => FieldTraits
  apiKeys: string[]
}

const ERROR_RESPONSES = Object.fromEntries(
  [400, 401, 403, 404, 429, 500, 501, 503, 504].map((status) => [status, { $ref: 'ChainStatus#' }])
)
/** Methods that would carry a transaction or a change: answered 501 like upstream, never forwarded. */
const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const

// Schemas here document the routes only: requests are read with grpc-gateway's own rules and
// answers are JSON already written from the descriptors, so Ajv and fast-json-stringify stay out.
const passThroughValidator = () => () => true
const passThroughSerializer = () => (data: unknown) => (typeof data === 'string' ? data : JSON.stringify(data))

/**
 * One Fastify route per google.api.http GET rule of the catalog, all answering in the
 * google.rpc.Status error contract (own encapsulated error handler).
 */
export const gatewayRoutes: FastifyPluginAsyncTypebox<GatewayRoutesOptions> = async (app, options) => {
  const schemas = createSchemaBuilder(options.traitsOf)
  app.setErrorHandler(statusErrorHandler)
  if (options.apiKeys.length > 0) await app.register(apiKeyPlugin, { keys: options.apiKeys })

  for (const route of options.catalog.routes) registerRoute(app, route, options.deps, schemas)
}

function registerRoute (
  app: App,
  route: GatewayRoute,
  deps: TranscoderDeps,
  schemas: ReturnType<typeof createSchemaBuilder>
) {
  const transcode = createTranscoder(route, deps)
  const cache = deps.cache.enabled ? deps.cache : undefined
  const { bindings, fastifyPath, template } = route.compiled
  const method = route.method
  const aliasPrefix = route.aliasOf !== undefined ? 'alias_' : ''
  const shared: RouteShorthandOptions = {
    validatorCompiler: passThroughValidator,
    serializerCompiler: passThroughSerializer
  }

  app.route({
    ...shared,
    method: 'GET',
    url: fastifyPath,
    schema: {
      tags: [method.parent.typeName],
      operationId: `${aliasPrefix}${method.parent.typeName.replace(/\./g, '_')}_${method.name}`,
      summary: `${method.parent.name}.${method.name} (${route.grpcPath})`,
      description: route.aliasOf !== undefined ? `Legacy alias of ${route.aliasOf}` : `google.api.http GET ${template}`,
      hide: route.aliasOf !== undefined,
      params: schemas.paramsSchema(bindings),
      querystring: schemas.querySchema(method.input, new Set(bindings.map((b) => b.fieldPath))),
      headers: {
        type: 'object',
        properties: {
          'x-cosmos-block-height': {
            type: 'string',
            pattern: '^[0-9]+$',
            description: 'Query at this height (0 or absent: latest)'
          }
        }
      },
      response: { 200: schemas.messageSchema(method.output), ...ERROR_RESPONSES }
    },
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const height = requestedHeight(request.headers['x-cosmos-block-height'])
      // A URL answered before is served from the cache without parsing it again.
      const rawKey = cache !== undefined ? `${route.grpcPath} ${height} ${request.url}` : undefined
      let answer = rawKey !== undefined ? cache?.peek(rawKey) : undefined
      if (answer === undefined) {
        const values = bindingValues(bindings, request.params as Record<string, string>)
        if (values === undefined) throw notFoundError()
        answer = await transcode(values, request.query as Record<string, unknown>, height, rawKey)
      }
      if (answer.height !== undefined) {
        reply.header(HEIGHT_RESPONSE_HEADER, answer.height)
        reply.header(GRPC_HEIGHT_RESPONSE_HEADER, answer.height)
      }
      return await reply.type('application/json').send(answer.body)
    }
  })

  app.route({
    ...shared,
    method: [...WRITE_METHODS],
    url: fastifyPath,
    schema: { hide: true },
    handler: async () => { throw notImplementedError() }
  })
}
