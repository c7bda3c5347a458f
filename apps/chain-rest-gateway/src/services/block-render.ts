import { fromBinary } from '@bufbuild/protobuf'
import type { Served } from './served.ts'

const LATEST_BLOCK_RESPONSE = 'cosmos.base.tendermint.v1beta1.GetLatestBlockResponse'

/**
 * A GetLatestBlock answer as JSON, written like the REST route `/cosmos/base/tendermint/v1beta1/blocks/latest`
 * when the served descriptors have the tendermint service (a node's reflection); without them only the
 * height is known, and the event is `{"height":"N"}`.
 */
export function renderLatestBlock (served: Served | undefined, bytes: Uint8Array, height: number): string {
  const desc = served?.registry.getMessage(LATEST_BLOCK_RESPONSE)
  if (served !== undefined && desc !== undefined) {
    try {
      const message = fromBinary(desc, bytes, { readUnknownFields: false })
      return served.writer(desc, message as unknown as Record<string, unknown>)
    } catch {
      // Not decodable with these descriptors: the height is still worth sending.
    }
  }
  return JSON.stringify({ height: String(height) })
}
