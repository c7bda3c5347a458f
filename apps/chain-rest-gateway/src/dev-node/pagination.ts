import { ChainStatusError, GrpcCode } from '../errors.ts'

/** cosmos.base.query.v1beta1.PageRequest as decoded by @bufbuild/protobuf. */
export interface PageRequest {
  key: Uint8Array
  offset: bigint
  limit: bigint
  countTotal: boolean
  reverse: boolean
}

const DEFAULT_LIMIT = 100n

/**
 * The Cosmos SDK `query.Paginate` rules over records sorted by store key: limit 0 means 100 and
 * forces count_total; key and offset together are an error (ixo list handlers answer Internal);
 * count_total is ignored with a key; reverse walks the keys downwards.
 */
export function paginate<T> (records: T[], storeKey: (record: T) => string, page: PageRequest | undefined) {
  const key = page?.key ?? new Uint8Array(0)
  const offset = page?.offset ?? 0n
  let limit = page?.limit ?? 0n
  let countTotal = page?.countTotal ?? false
  if (key.length > 0 && offset > 0n) {
    throw new ChainStatusError(GrpcCode.INTERNAL, 'invalid request, either offset or key is expected, got both')
  }
  if (limit === 0n) {
    limit = DEFAULT_LIMIT
    countTotal = true
  }
  const ordered = [...records].sort((a, b) => (storeKey(a) < storeKey(b) ? -1 : storeKey(a) > storeKey(b) ? 1 : 0))
  if (page?.reverse === true) ordered.reverse()

  let start = 0
  if (key.length > 0) {
    const from = Buffer.from(key).toString('utf8')
    start = ordered.findIndex((r) => (page?.reverse === true ? storeKey(r) <= from : storeKey(r) >= from))
    if (start < 0) start = ordered.length
  } else {
    start = Number(offset > BigInt(ordered.length) ? BigInt(ordered.length) : offset)
  }
  const end = start + Number(limit > BigInt(ordered.length) ? BigInt(ordered.length) : limit)
  const next = ordered[end]
  return {
    items: ordered.slice(start, end),
    pagination: {
      nextKey: next !== undefined ? new Uint8Array(Buffer.from(storeKey(next), 'utf8')) : new Uint8Array(0),
      total: key.length === 0 && countTotal ? BigInt(ordered.length) : 0n
    }
  }
}
