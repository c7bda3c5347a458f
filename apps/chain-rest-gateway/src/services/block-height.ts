import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire'

// Read by field number (only heights are needed): every Cosmos node serves this service, whatever its modules.
export const LATEST_BLOCK_PATH = '/cosmos.base.tendermint.v1beta1.Service/GetLatestBlock'
export const BLOCK_BY_HEIGHT_PATH = '/cosmos.base.tendermint.v1beta1.Service/GetBlockByHeight'

// Responses: block = 2 (tendermint), sdk_block = 3; in both, header = 1 and its height = 3.
const BLOCK_FIELDS = [2, 3]
const HEADER_FIELD = 1
const HEIGHT_FIELD = 3

function submessage (bytes: Uint8Array, number: number): Uint8Array | undefined {
  const reader = new BinaryReader(bytes)
  while (reader.pos < reader.len) {
    const [field, wire] = reader.tag()
    if (field === number && wire === WireType.LengthDelimited) return reader.bytes()
    reader.skip(wire, field)
  }
  return undefined
}

function int64Field (bytes: Uint8Array, number: number): bigint | undefined {
  const reader = new BinaryReader(bytes)
  while (reader.pos < reader.len) {
    const [field, wire] = reader.tag()
    if (field === number && wire === WireType.Varint) return BigInt(reader.int64())
    reader.skip(wire, field)
  }
  return undefined
}

export function readBlockHeight (bytes: Uint8Array): number | undefined {
  try {
    for (const field of BLOCK_FIELDS) {
      const header = submessage(submessage(bytes, field) ?? new Uint8Array(0), HEADER_FIELD)
      const height = header !== undefined ? int64Field(header, HEIGHT_FIELD) : undefined
      if (height !== undefined && height > 0n) return Number(height)
    }
  } catch {
    // A malformed answer says nothing about the height.
  }
  return undefined
}

/** A block answer carrying only its height, in both block fields (as nodes since cosmos-sdk 0.47 do). */
export function encodeBlockAnswer (height: number): Uint8Array {
  const header = new BinaryWriter().uint32((HEIGHT_FIELD << 3) | WireType.Varint).int64(height).finish()
  const block = new BinaryWriter().uint32((HEADER_FIELD << 3) | WireType.LengthDelimited).bytes(header).finish()
  const writer = new BinaryWriter()
  for (const field of BLOCK_FIELDS) writer.uint32((field << 3) | WireType.LengthDelimited).bytes(block)
  return writer.finish()
}

export function encodeHeightRequest (height: number): Uint8Array {
  return new BinaryWriter().uint32((1 << 3) | WireType.Varint).int64(height).finish()
}

export function readHeightRequest (bytes: Uint8Array): number {
  return Number(int64Field(bytes, 1) ?? 0n)
}

/** CometBFT's answer for a block below its store's base: "height 1 is not available, lowest height is 52". */
export function lowestHeightIn (message: string): number | undefined {
  const match = /lowest height is (\d+)/.exec(message)
  return match !== null ? Number(match[1]) : undefined
}

/** Messages of a node asked for state it pruned (baseapp) or blocks it no longer keeps (CometBFT). */
export const PRUNED_HEIGHT = /failed to load state at height|version does not exist|is not available, lowest height is/

export const FUTURE_HEIGHT = /height in the future|must be less than or equal to the current blockchain height/
