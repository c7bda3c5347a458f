import * as grpc from '@grpc/grpc-js'
import { startOutboundSpan } from '@impact/service-kit'
import { ChainStatusError, GrpcCode } from '../errors.ts'

/**
 * The chain nodes behind the gateway, in failover order. Queries go to the first node believed
 * up; a node that answers Unavailable is marked down and the query moves on to the next one
 * within the same deadline (queries are idempotent). Background probes mark nodes up again.
 */
export interface UpstreamPoolOptions {
  urls: string[]
  maxReceiveBytes: number
  reconnectBackoffMs: number
  healthIntervalMs: number
  probeTimeoutMs?: number
  onStateChange?: (url: string, up: boolean, reason?: string) => void
}

export interface UnaryResult {
  bytes: Buffer
  /** The height the node answered at (its x-cosmos-block-height response header). */
  height: string | undefined
}

interface Upstream {
  url: string
  address: string
  client: grpc.Client
  up: boolean
}

export const HEIGHT_HEADER = 'x-cosmos-block-height'
/** Any status but these means the node is there and answering (Unimplemented included). */
const TRANSPORT_FAILURES: ReadonlySet<number> = new Set([
  GrpcCode.UNAVAILABLE,
  GrpcCode.DEADLINE_EXCEEDED,
  GrpcCode.CANCELLED
])
const PROBE_PATH = '/grpc.health.v1.Health/Check'
const identity = (value: Buffer) => value

export function parseUpstream (url: string): { address: string, credentials: grpc.ChannelCredentials } {
  const match = /^(?:(grpcs|https|grpc|http):\/\/)?([^/]+?)\/?$/.exec(url.trim())
  if (match === null) throw new Error(`bad upstream address ${url}`)
  const tls = match[1] === 'grpcs' || match[1] === 'https'
  const host = match[2]!
  const hasPort = /:\d+$/.test(host) && !/^\[[^\]]+\]$/.test(host)
  return {
    address: hasPort ? host : `${host}:${tls ? 443 : 9090}`,
    credentials: tls ? grpc.credentials.createSsl() : grpc.credentials.createInsecure()
  }
}

/** A client span for one call (`package.Service/Method`), its traceparent sent as metadata; none outside a trace. */
function rpcSpan (address: string, path: string) {
  const [service, method] = path.slice(1).split('/')
  return startOutboundSpan(path.slice(1), {
    'rpc.system': 'grpc',
    ...(service !== undefined ? { 'rpc.service': service } : {}),
    ...(method !== undefined ? { 'rpc.method': method } : {}),
    'server.address': address
  })
}

export function createUpstreamPool (options: UpstreamPoolOptions) {
  const upstreams: Upstream[] = options.urls.map((url) => {
    const { address, credentials } = parseUpstream(url)
    const client = new grpc.Client(address, credentials, {
      'grpc.max_receive_message_length': options.maxReceiveBytes,
      'grpc.max_send_message_length': 4 * 1024 * 1024,
      // A node that went away is retried at least this often, so it is used again soon after it returns.
      'grpc.initial_reconnect_backoff_ms': Math.min(1000, options.reconnectBackoffMs),
      'grpc.max_reconnect_backoff_ms': options.reconnectBackoffMs,
      'grpc.enable_retries': 0
    })
    return { url, address, client, up: true }
  })
  const probeTimeoutMs = options.probeTimeoutMs ?? 1500
  let timer: NodeJS.Timeout | undefined

  function mark (upstream: Upstream, up: boolean, reason?: string) {
    if (upstream.up === up) return
    upstream.up = up
    options.onStateChange?.(upstream.url, up, reason)
  }

  function unary (
    upstream: Upstream,
    path: string,
    request: Uint8Array,
    height: string | undefined,
    deadline: number
  ): Promise<UnaryResult> {
    return new Promise((resolve, reject) => {
      const metadata = new grpc.Metadata()
      if (height !== undefined) metadata.set(HEIGHT_HEADER, height)
      const span = rpcSpan(upstream.address, path)
      for (const [name, value] of Object.entries(span?.headers ?? {})) metadata.set(name, value)
      let answeredHeight: string | undefined
      const call = upstream.client.makeUnaryRequest(
        path,
        identity,
        identity,
        Buffer.from(request.buffer, request.byteOffset, request.byteLength),
        metadata,
        { deadline },
        (error: grpc.ServiceError | null, response?: Buffer) => {
          span?.end({ attributes: { 'rpc.grpc.status_code': error?.code ?? 0 }, failed: error !== null })
          if (error !== null) {
            const status = new ChainStatusError(error.code, error.details, {
              fromNode: !TRANSPORT_FAILURES.has(error.code)
            })
            status.height = answeredHeight ?? error.metadata?.get(HEIGHT_HEADER)[0]?.toString()
            reject(status)
            return
          }
          resolve({ bytes: response ?? Buffer.alloc(0), height: answeredHeight })
        })
      call.on('metadata', (headers: grpc.Metadata) => {
        answeredHeight = headers.get(HEIGHT_HEADER)[0]?.toString()
      })
    })
  }

  async function probe (upstream: Upstream): Promise<boolean> {
    try {
      await unary(upstream, PROBE_PATH, new Uint8Array(0), undefined, Date.now() + probeTimeoutMs)
      mark(upstream, true)
    } catch (error) {
      const code = (error as ChainStatusError).grpcCode
      const up = !TRANSPORT_FAILURES.has(code)
      mark(upstream, up, up ? undefined : (error as Error).message)
    }
    return upstream.up
  }

  return {
    urls: options.urls,

    /** One query with failover; throws ChainStatusError (Unavailable when no node could be reached). */
    async call (
      path: string,
      request: Uint8Array,
      height: string | undefined,
      timeoutMs: number
    ): Promise<UnaryResult> {
      const deadline = Date.now() + timeoutMs
      const order = [...upstreams.filter((u) => u.up), ...upstreams.filter((u) => !u.up)]
      let last: ChainStatusError | undefined
      for (const upstream of order) {
        if (Date.now() >= deadline) break
        try {
          const result = await unary(upstream, path, request, height, deadline)
          mark(upstream, true)
          return result
        } catch (error) {
          const status = error as ChainStatusError
          if (status.grpcCode !== GrpcCode.UNAVAILABLE) throw status
          mark(upstream, false, status.message)
          last = status
        }
      }
      if (last !== undefined && Date.now() < deadline) {
        throw new ChainStatusError(GrpcCode.UNAVAILABLE, 'no chain node is reachable')
      }
      throw new ChainStatusError(GrpcCode.DEADLINE_EXCEEDED, 'the chain node did not answer in time')
    },

    /** Calls each node in turn until one answers (reflection at start-up). */
    async callAny (path: string, timeoutMs: number): Promise<UnaryResult> {
      let last: unknown
      for (const upstream of upstreams) {
        try {
          return await unary(upstream, path, new Uint8Array(0), undefined, Date.now() + timeoutMs)
        } catch (error) {
          last = error
          if (TRANSPORT_FAILURES.has((error as ChainStatusError).grpcCode)) continue
          throw error
        }
      }
      throw last
    },

    probeAll: async () => await Promise.all(upstreams.map(probe)),
    status: () => upstreams.map((u) => ({ url: u.url, up: u.up })),

    start () {
      if (options.healthIntervalMs <= 0 || timer !== undefined) return
      timer = setInterval(() => { Promise.all(upstreams.map(probe)).catch(() => {}) }, options.healthIntervalMs)
      timer.unref()
    },

    close () {
      clearInterval(timer)
      timer = undefined
      for (const upstream of upstreams) upstream.client.close()
    }
  }
}

export type UpstreamPool = ReturnType<typeof createUpstreamPool>
