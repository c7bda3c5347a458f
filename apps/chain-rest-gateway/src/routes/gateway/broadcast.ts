import { fromBinary, fromJson, toBinary, create, type JsonValue } from '@bufbuild/protobuf'
import type { FastifyInstance, FastifyRequest, RouteShorthandOptions } from 'fastify'
import { ChainStatusError, GrpcCode, invalidArgument, notFoundError, notImplementedError } from '../../errors.ts'
import type { Served } from '../../services/served.ts'
import type { UpstreamPool } from '../../services/upstream-pool.ts'

const TX_SERVICE = 'cosmos.tx.v1beta1.Service'
/** The two write rules of cosmos.tx.v1beta1.Service, both `body: "*"`. */
export const BROADCAST_ROUTES = [
  ['/cosmos/tx/v1beta1/txs', 'BroadcastTx'],
  ['/cosmos/tx/v1beta1/simulate', 'Simulate']
] as const

export interface BroadcastOptions {
  served: () => Served | undefined
  /** Nodes transactions are sent to (CHAIN_BROADCAST_URL); undefined: pass-through off, 404. */
  pool: UpstreamPool | undefined
  timeoutMs: number
  shared: RouteShorthandOptions
}

/**
 * Optional pass-through of signed transactions: the JSON body (`{"tx_bytes": "<base64>", "mode": …}`,
 * proto or JSON field names) becomes the request message of the served descriptors, goes to the broadcast
 * node unchanged, and its answer is written like any query's. Nothing is cached or signed here.
 */
export async function broadcastRoutes (app: FastifyInstance, options: BroadcastOptions) {
  for (const [url, name] of BROADCAST_ROUTES) {
    app.route({
      ...options.shared,
      method: 'POST',
      url,
      bodyLimit: 1024 * 1024,
      handler: async (request: FastifyRequest, reply) => {
        const pool = options.pool
        if (pool === undefined) throw notFoundError()
        const served = options.served()
        const method = served?.registry.getService(TX_SERVICE)?.methods.find((m) => m.name === name)
        if (served === undefined || method === undefined) throw notImplementedError()
        let message
        try {
          message = request.body === undefined || request.body === null
            ? create(method.input)
            : fromJson(method.input, request.body as JsonValue, { ignoreUnknownFields: true })
        } catch (error) {
          throw invalidArgument(`invalid ${method.input.typeName} body: ${(error as Error).message}`)
        }
        const result = await pool.call(`/${TX_SERVICE}/${name}`, toBinary(method.input, message), undefined,
          options.timeoutMs)
        let answer
        try {
          answer = fromBinary(method.output, result.bytes, { readUnknownFields: false })
        } catch {
          throw new ChainStatusError(GrpcCode.INTERNAL, `cannot decode the ${method.output.typeName} answer`)
        }
        reply.header('cache-control', 'no-store')
        return await reply.type('application/json')
          .send(served.writer(method.output, answer as unknown as Record<string, unknown>))
      }
    })
  }
}
