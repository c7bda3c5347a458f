/**
 * DEVELOPMENT FIXTURE: cosmos.tx.v1beta1.Service BroadcastTx and Simulate, accepting any bytes as a
 * transaction (nothing is decoded, signed or executed): the hash is the SHA-256 of the bytes, as on a
 * chain, and the gas is derived from their length. Empty bytes are refused with the SDK's messages.
 */
import { createHash } from 'node:crypto'
import { ChainStatusError, GrpcCode } from '../errors.ts'
import type { Handler } from './handlers.ts'

const bytesOf = (value: unknown) => (value instanceof Uint8Array ? value : new Uint8Array(0))
const gasFor = (tx: Uint8Array) => BigInt(50_000 + tx.byteLength * 10)

export function createTxHandlers (): Record<string, Handler> {
  return {
    '/cosmos.tx.v1beta1.Service/BroadcastTx': (request) => {
      const tx = bytesOf(request.txBytes)
      if (tx.byteLength === 0) throw new ChainStatusError(GrpcCode.INVALID_ARGUMENT, 'invalid empty tx')
      const txhash = createHash('sha256').update(tx).digest('hex').toUpperCase()
      // Sync and async broadcasts answer before the transaction is in a block: height 0.
      return { txResponse: { height: 0n, txhash, code: 0, rawLog: '', gasWanted: gasFor(tx) } }
    },
    '/cosmos.tx.v1beta1.Service/Simulate': (request) => {
      const tx = bytesOf(request.txBytes)
      if (tx.byteLength === 0) {
        throw new ChainStatusError(GrpcCode.INVALID_ARGUMENT, 'empty txBytes is not allowed: invalid request')
      }
      return { gasInfo: { gasWanted: 0n, gasUsed: gasFor(tx) }, result: { log: '', events: [], msgResponses: [] } }
    }
  }
}
