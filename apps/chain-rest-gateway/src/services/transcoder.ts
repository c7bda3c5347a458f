import { fromBinary } from '@bufbuild/protobuf'
import { ChainStatusError, GRPC_HEIGHT_RESPONSE_HEADER, GrpcCode, invalidArgument } from '../errors.ts'
import { createRequestBuilder } from './request-builder.ts'
import type { JsonWriter } from './json-writer.ts'
import type { CachedAnswer, ResponseCache } from './response-cache.ts'
import type { GatewayRoute } from './route-catalog.ts'
import { HEIGHT_HEADER, type UpstreamPool } from './upstream-pool.ts'

export interface TranscoderDeps {
  pool: UpstreamPool
  cache: ResponseCache
  writer: JsonWriter
  timeoutMs: number
  /** Largest pagination.limit passed to the node (0: no cap). */
  maxPageLimit: number
}

const INT64_MAX = 2n ** 63n - 1n

const headerValue = (header: string | string[] | undefined) => (Array.isArray(header) ? header[0] : header)?.trim()

/**
 * The requested height: '' for latest (absent or 0), the height otherwise. grpc-gateway forwards
 * `Grpc-Metadata-X-Cosmos-Block-Height` as the same metadata, so either header pins a query; two
 * different values are refused rather than guessed. Validated here so a malformed value never
 * reaches the node or the cache key.
 */
export function requestedHeight (headers: Record<string, string | string[] | undefined>): string {
  const plain = headerValue(headers[HEIGHT_HEADER])
  const prefixed = headerValue(headers[GRPC_HEIGHT_RESPONSE_HEADER])
  if (plain !== undefined && prefixed !== undefined && plain !== prefixed) {
    throw invalidArgument('conflicting x-cosmos-block-height and grpc-metadata-x-cosmos-block-height headers')
  }
  const value = plain ?? prefixed
  if (value === undefined || value === '') return ''
  if (!/^\d{1,19}$/.test(value) || BigInt(value) > INT64_MAX) {
    throw invalidArgument('invalid x-cosmos-block-height header: expected a non-negative 64-bit integer')
  }
  const height = BigInt(value)
  return height === 0n ? '' : height.toString()
}

export type Transcode = ReturnType<typeof createTranscoder>

/** HTTP request parts → request bytes → node → JSON answer, for one route. */
export function createTranscoder (route: GatewayRoute, deps: TranscoderDeps) {
  const builder = createRequestBuilder(
    route.method.input,
    route.compiled.bindings.map((b) => b.fieldPath),
    deps.maxPageLimit
  )
  const output = route.method.output

  async function fetch (request: Uint8Array, height: string): Promise<CachedAnswer> {
    const result = await deps.pool.call(route.grpcPath, request, height === '' ? undefined : height, deps.timeoutMs)
    let message
    try {
      message = fromBinary(output, result.bytes, { readUnknownFields: false })
    } catch {
      throw new ChainStatusError(GrpcCode.INTERNAL, `cannot decode the ${output.typeName} answer of the chain node`)
    }
    return {
      body: Buffer.from(deps.writer(output, message as unknown as Record<string, unknown>), 'utf8'),
      height: result.height
    }
  }

  return async function transcode (
    pathValues: Array<[string, string]>,
    query: Record<string, unknown>,
    height: string,
    rawKey?: string
  ): Promise<CachedAnswer> {
    const request = builder.encode(pathValues, query)
    return await deps.cache.get(route.grpcPath, height, request, async () => await fetch(request, height), rawKey)
  }
}
