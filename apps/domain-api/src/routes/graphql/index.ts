import { printSchema } from 'graphql'
import type { Kysely } from 'kysely'
import mercurius from 'mercurius'
import type { onRequestHookHandler, RouteOptions } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@impact/service-kit'
import type { DB } from '../../db/types.ts'
import { formatExecutionErrors, handleGraphqlRouteError } from '../../graphql/error-format.ts'
import { checkQueryCost } from '../../graphql/limits.ts'
import { createLoaders } from '../../graphql/loaders.ts'
import { createResolvers } from '../../graphql/resolvers.ts'
import { SCHEMA } from '../../graphql/schema.ts'
import { authorize } from '../../plugins/auth.ts'
import { GraphqlRequestErrorSchema, GraphqlResponseSchema } from '../../schemas/graphql.ts'
import { SECURITY } from '../../schemas/security.ts'
import type { ApiKeyService } from '../../services/api-keys.ts'
import type { Clock } from '../../services/clock.ts'
import type { DomainService } from '../../services/domains.ts'
import type { GovernanceService } from '../../services/governance.ts'

export const GRAPHQL_PATH = '/graphql'

export interface GraphqlRoutesOptions {
  apiKeys: ApiKeyService
  domains: DomainService
  governance: GovernanceService
  db: Kysely<DB>
  clock: Clock
  /** Serve GraphiQL at /graphiql (development). */
  graphiql: boolean
  maxDepth: number
  maxCost: number
}

const tags = ['graphql']
// First in every union: a GraphQL shape (all fields optional) would also match an error body and drop its fields.
const ERROR_BODY = { $ref: 'ErrorBody#' }
const DESCRIPTION = 'Any valid API key. Queries: domain(did), domains(filter, first, after) as a Relay ' +
  'connection, verificationProposal(id); the schema is at GET /graphql/schema. A query that does not parse or ' +
  'validate, has bad variables, or is over the depth, page-size or cost limits is refused with 400 and GraphQL ' +
  'errors; failed authentication is 401/403 with the JSON error body of every route.'

const asArray = <T>(value: T | T[] | undefined): T[] =>
  (value === undefined ? [] : Array.isArray(value) ? value : [value])

/**
 * POST (and GET) /graphql through mercurius, encapsulated so its error handler applies to these
 * routes only. Mercurius declares its routes itself; they get the REST routes' auth and docs here.
 */
export const graphqlRoutes: FastifyPluginAsyncTypebox<GraphqlRoutesOptions> = async (app, options) => {
  const requireCaller = authorize(options.apiKeys)

  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.url === GRAPHQL_PATH) {
      route.onRequest = [requireCaller, ...asArray<onRequestHookHandler>(route.onRequest as onRequestHookHandler)]
      const { '2xx': _replaced, ...inherited } = (route.schema?.response ?? {}) as Record<string, unknown>
      route.schema = {
        ...route.schema,
        tags,
        security: SECURITY,
        summary: route.method === 'GET' ? 'Run a GraphQL query given in the query string' : 'Run a GraphQL query',
        description: DESCRIPTION,
        response: {
          ...inherited,
          200: GraphqlResponseSchema,
          400: { anyOf: [ERROR_BODY, GraphqlRequestErrorSchema, GraphqlResponseSchema] },
          401: ERROR_BODY,
          403: ERROR_BODY,
          // A database outage mid-query keeps the GraphQL shape; one while authenticating is the JSON error body.
          503: { anyOf: [ERROR_BODY, GraphqlResponseSchema] }
        }
      }
    } else if (route.url.startsWith('/graphiql')) {
      route.schema = { ...route.schema, hide: true }
    }
  })

  await app.register(mercurius, {
    schema: SCHEMA,
    path: GRAPHQL_PATH,
    resolvers: createResolvers(options),
    loaders: createLoaders(options),
    graphiql: options.graphiql,
    queryDepth: options.maxDepth,
    errorHandler: handleGraphqlRouteError,
    errorFormatter: formatExecutionErrors as never
  })
  app.graphql.addHook('preExecution', async (schema, document, _context, variables) => {
    checkQueryCost(schema, document, variables, options.maxCost)
  })

  const sdl = printSchema(app.graphql.schema)
  app.get('/graphql/schema', {
    schema: {
      tags,
      summary: 'The GraphQL schema (SDL)',
      description: 'Public, like this OpenAPI document. Introspection through POST /graphql gives the same.',
      response: {
        200: { description: 'The schema in GraphQL SDL', content: { 'text/plain': { schema: Type.String() } } }
      }
    }
  }, async (_request, reply) => await reply.type('text/plain; charset=utf-8').send(sdl))
}
