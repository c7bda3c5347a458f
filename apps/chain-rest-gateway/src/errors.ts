import { STATUS_CODES } from 'node:http'
import { Type, type Static } from '@sinclair/typebox'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'

/**
 * gRPC status codes (google.rpc.Code). The gateway's error body is a marshalled google.rpc.Status,
 * as Cosmos nodes write it: `{ code, message, details }` with the gRPC code, not the HTTP one.
 */
export const GrpcCode = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16
} as const

/** grpc-gateway v1.16 `runtime.HTTPStatusFromCode`, the mapping Cosmos REST clients depend on. */
const HTTP_STATUS: Record<number, number> = {
  0: 200,
  1: 408,
  2: 500,
  3: 400,
  4: 504,
  5: 404,
  6: 409,
  7: 403,
  8: 429,
  9: 400,
  10: 409,
  11: 400,
  12: 501,
  13: 500,
  14: 503,
  15: 500,
  16: 401
}

export const httpStatusOf = (grpcCode: number): number => HTTP_STATUS[grpcCode] ?? 500

export const StatusDetailSchema = Type.Object({
  '@type': Type.String({ description: 'Type URL of the packed detail message' })
}, { additionalProperties: true })

export const StatusBodySchema = Type.Object({
  code: Type.Integer({ description: 'gRPC status code (5 NotFound, 12 Unimplemented, 14 Unavailable…)' }),
  message: Type.String(),
  details: Type.Array(StatusDetailSchema)
}, { $id: 'ChainStatus', description: 'google.rpc.Status as JSON, the error body of Cosmos REST gateways' })
export type StatusBody = Static<typeof StatusBodySchema>

/**
 * An error answered with a google.rpc.Status body. `fromNode` marks errors relayed from the chain
 * node, whose messages are the node's own (keeper messages clients match on) and pass through.
 */
export class ChainStatusError extends Error {
  readonly grpcCode: number
  readonly details: StatusBody['details']
  readonly fromNode: boolean
  /** The height the node reported with the error, when it did. */
  height: string | undefined
  constructor (
    grpcCode: number,
    message: string,
    options: { details?: StatusBody['details']; fromNode?: boolean } = {}
  ) {
    super(message)
    this.name = 'ChainStatusError'
    this.grpcCode = grpcCode
    this.details = options.details ?? []
    this.fromNode = options.fromNode ?? false
  }

  get statusCode (): number {
    return httpStatusOf(this.grpcCode)
  }
}

export const invalidArgument = (message: string) => new ChainStatusError(GrpcCode.INVALID_ARGUMENT, message)
export const notFoundError = () => new ChainStatusError(GrpcCode.NOT_FOUND, 'Not Found')
export const notImplementedError = () => new ChainStatusError(GrpcCode.UNIMPLEMENTED, 'Not Implemented')

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

/** The height a query was answered at: on answers in both headers, on errors in the grpc-metadata one only. */
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
export function statusErrorHandler (
  error: FastifyError | ChainStatusError,
  request: FastifyRequest,
  reply: FastifyReply
) {
  if (error instanceof ChainStatusError) {
    if (error.height !== undefined) reply.header(GRPC_HEIGHT_RESPONSE_HEADER, error.height)
    if (error.grpcCode === GrpcCode.UNAVAILABLE || error.grpcCode === GrpcCode.DEADLINE_EXCEEDED) {
      request.log.warn({ grpcCode: error.grpcCode, reason: error.message }, 'chain node unavailable')
    }
    return send(reply, error.statusCode, { code: error.grpcCode, message: error.message, details: error.details })
  }
  const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 600
    ? error.statusCode
    : 500
  if (status >= 500) {
    request.log.error({ err: error }, 'request failed')
    const message = STATUS_CODES[status] ?? 'Internal Server Error'
    return send(reply, status, { code: GRPC_CODE_OF_HTTP[status] ?? GrpcCode.INTERNAL, message, details: [] })
  }
  const code = GRPC_CODE_OF_HTTP[status] ?? GrpcCode.INVALID_ARGUMENT
  return send(reply, status, { code, message: error.message, details: [] })
}

/** Unknown paths: 404 with a NotFound status (upstream answers 501; our spec says 404). */
export function statusNotFoundHandler (_request: FastifyRequest, reply: FastifyReply) {
  return send(reply, httpStatusOf(GrpcCode.NOT_FOUND), { code: GrpcCode.NOT_FOUND, message: 'Not Found', details: [] })
}
