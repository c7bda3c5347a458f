/**
 * DEVELOPMENT FIXTURE: the part of `cosmos.base.tendermint.v1beta1.Service` the gateway uses to watch
 * nodes (latest block, block by height), answering with heights only and with the messages a
 * pruned node gives. Not part of reflection: the gateway has no routes for it.
 */
import type * as grpc from '@grpc/grpc-js'
import { GrpcCode } from '../errors.ts'
import {
  BLOCK_BY_HEIGHT_PATH,
  encodeBlockAnswer,
  LATEST_BLOCK_PATH,
  readHeightRequest
} from '../services/block-height.ts'

const identity = (value: Buffer) => value

export interface BlockStore {
  latest: () => number
  /** Lowest block kept (CometBFT's block store base). */
  base: () => number
}

function method (path: string): grpc.MethodDefinition<Buffer, Buffer> {
  return {
    path,
    requestStream: false,
    responseStream: false,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity
  }
}

export function tendermintService (store: BlockStore, count: (path: string) => void) {
  const definition = {
    GetLatestBlock: method(LATEST_BLOCK_PATH),
    GetBlockByHeight: method(BLOCK_BY_HEIGHT_PATH)
  }
  const implementation: grpc.UntypedServiceImplementation = {
    GetLatestBlock: (_call: unknown, callback: grpc.sendUnaryData<Buffer>) => {
      count(LATEST_BLOCK_PATH)
      callback(null, Buffer.from(encodeBlockAnswer(store.latest())))
    },
    GetBlockByHeight: (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
      count(BLOCK_BY_HEIGHT_PATH)
      const height = readHeightRequest(call.request)
      const fail = (code: number, details: string) => callback({ code, details })
      if (height <= 0) return fail(GrpcCode.INVALID_ARGUMENT, `height must be greater than 0, but got ${height}`)
      if (height > store.latest()) {
        return fail(GrpcCode.INVALID_ARGUMENT, 'requested block height is bigger then the chain length')
      }
      if (height < store.base()) {
        return fail(GrpcCode.UNKNOWN, `height ${height} is not available, lowest height is ${store.base()}`)
      }
      callback(null, Buffer.from(encodeBlockAnswer(height)))
    }
  }
  return { definition, implementation }
}
