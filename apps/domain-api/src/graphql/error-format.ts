import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { GraphQLError, type ExecutionResult, type GraphQLFormattedError } from 'graphql'
import { errorHandler, toErrorBody } from '@impact/service-kit'

// Execution errors keep their code in `extensions.code` (masked like REST 5xx); errors of the query itself are 400.

interface Coded { code?: unknown, statusCode?: unknown, errors?: unknown, validation?: unknown }

/** Mercurius's and our own codes for a query that cannot run. */
const REQUEST_ERROR = /^(MER_ERR_|DOMAIN_GRAPHQL_)/
const TOO_COMPLEX = new Set(['MER_ERR_GQL_QUERY_DEPTH', 'DOMAIN_GRAPHQL_TOO_COMPLEX'])

interface Formatted { error: GraphQLFormattedError, status: number }

const located = (error: unknown) => (error instanceof GraphQLError ? error.toJSON() : undefined)

/** An error about the query itself: graphql-js's, mercurius's depth limit, or one of ours. */
function requestError (error: unknown): Formatted {
  const code = (error as Coded).code
  const json = located(error)
  const message = error instanceof Error ? error.message : String(error)
  const tooComplex = typeof code === 'string' && TOO_COMPLEX.has(code)
  const domainCode = tooComplex ? 'DOMAIN_GRAPHQL_TOO_COMPLEX' : 'DOMAIN_GRAPHQL_INVALID'
  return {
    error: { ...json, message: message.replace(/^`|`$/g, ''), extensions: { code: domainCode } },
    status: 400
  }
}

function executionError (error: GraphQLError, request: FastifyRequest): Formatted {
  const original = error.originalError
  // Variables that do not coerce come from graphql-js with no error of ours behind them.
  if (original === undefined || original instanceof GraphQLError) return requestError(error)
  const body = toErrorBody(original as FastifyError, request)
  const json = error.toJSON()
  return {
    error: {
      message: body.message,
      ...(json.locations !== undefined ? { locations: json.locations } : {}),
      ...(json.path !== undefined ? { path: json.path } : {}),
      extensions: {
        code: body.code ?? 'INTERNAL_SERVER_ERROR',
        ...(body.details !== undefined ? { details: body.details } : {})
      }
    },
    status: body.statusCode
  }
}

/** The worst server error, else 400 without data, else 200, as GraphQL over HTTP says. */
function statusOf (formatted: Formatted[], data: unknown): number {
  const worst = Math.max(...formatted.map((f) => f.status))
  if (worst >= 500) return worst
  return data === undefined || data === null ? 400 : 200
}

/** Mercurius's `errorFormatter`: errors of an execution. */
export function formatExecutionErrors (execution: ExecutionResult, context: { reply: FastifyReply }) {
  const formatted = (execution.errors ?? []).map((error) => executionError(error, context.reply.request))
  return {
    statusCode: statusOf(formatted, execution.data),
    response: { data: execution.data ?? null, errors: formatted.map((f) => f.error) }
  }
}

/** Mercurius's `errorHandler`: a query that cannot run gets GraphQL errors (400), anything else the JSON body. */
export async function handleGraphqlRouteError (error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const code = (error as Coded).code
  const isRequestError = (typeof code === 'string' && REQUEST_ERROR.test(code)) ||
    (error as Coded).validation !== undefined
  if (!isRequestError) return errorHandler.call(request.server, error, request, reply)
  const inner = (error as Coded).errors
  const formatted = (Array.isArray(inner) && inner.length > 0 ? inner : [error]).map(requestError)
  return await reply.code(400).send({ errors: formatted.map((f) => f.error) })
}
