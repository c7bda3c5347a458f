import { STATUS_CODES } from 'node:http'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { ChainStatusError, GrpcCode, httpStatusOf, type StatusBody } from '../errors.ts'

/** HTTP statuses raised by Fastify itself (bad URL, 413…) expressed as the gRPC code clients expect. */
const GRPC_CODE_OF_HTTP: Record<number, number> = {
  400: GrpcCode.INVALID_ARGUMENT,
  401: GrpcCode.UNAUTHENTICATED,
  403: GrpcCode.PERMISSION_DENIED,
  404: GrpcCode.NOT_FOUND,
  408: GrpcCode.CANCELLED,
  409: GrpcCode.ABORTED,
  413: GrpcCode.RESOURCE_EXHAUSTED,
  429: GrpcCode.RESOURCE_EXHAUSTED,
  501: GrpcCode.UNIMPLEMENTED,
  503: GrpcCode.UNAVAILABLE,
  504: GrpcCode.DEADLINE_EXCEEDED
}

export const HEIGHT_RESPONSE_HEADER = 'x-cosmos-block-height'
export const GRPC_HEIGHT_RESPONSE_HEADER = 'grpc-metadata-x-cosmos-block-height'

function send (reply: FastifyReply, status: number, body: StatusBody) {
  return reply.code(status).type('application/json').send(JSON.stringify(body))
}

/**
 * The error contract of the gateway: a google.rpc.Status body `{ code, message, details }` with
 * the HTTP status of grpc-gateway's mapping. Node messages pass through (clients match on keeper
 * messages such as "entity not found"); anything unexpected is logged and answered as Internal.
 */
export function statusErrorHandler (error: FastifyError | ChainStatusError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof ChainStatusError) {
    if (error.height !== undefined) reply.header(GRPC_HEIGHT_RESPONSE_HEADER, error.height)
    if (error.grpcCode === GrpcCode.UNAVAILABLE || error.grpcCode === GrpcCode.DEADLINE_EXCEEDED) {
      request.log.warn({ grpcCode: error.grpcCode, reason: error.message }, 'chain node unavailable')
    }
    return send(reply, error.statusCode, { code: error.grpcCode, message: error.message, details: error.details })
  }
  const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500
  if (status >= 500) {
    request.log.error({ err: error }, 'request failed')
    return send(reply, status, { code: GRPC_CODE_OF_HTTP[status] ?? GrpcCode.INTERNAL, message: STATUS_CODES[status] ?? 'Internal Server Error', details: [] })
  }
  return send(reply, status, { code: GRPC_CODE_OF_HTTP[status] ?? GrpcCode.INVALID_ARGUMENT, message: error.message, details: [] })
}

/** Unknown paths: 404 with a NotFound status (upstream answers 501; our spec says 404). */
export function statusNotFoundHandler (_request: FastifyRequest, reply: FastifyReply) {
  return send(reply, httpStatusOf(GrpcCode.NOT_FOUND), { code: GrpcCode.NOT_FOUND, message: 'Not Found', details: [] })
}

export const notFoundError = () => new ChainStatusError(GrpcCode.NOT_FOUND, 'Not Found')
export const notImplementedError = () => new ChainStatusError(GrpcCode.UNIMPLEMENTED, 'Not Implemented')
