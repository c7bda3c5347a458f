import { Type, type Static } from '@sinclair/typebox'
import { defineError } from '@impact/service-kit'

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
  constructor (grpcCode: number, message: string, options: { details?: StatusBody['details'], fromNode?: boolean } = {}) {
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

/** Raised at start-up when routes cannot be derived (kit error body: it never reaches a chain client). */
export const CHAIN_DESCRIPTORS_UNAVAILABLE = defineError('CHAIN_DESCRIPTORS_UNAVAILABLE', 'Cannot load query descriptors: %s', 503)
