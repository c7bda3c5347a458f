import * as grpc from '@grpc/grpc-js'
import { startOutboundSpan } from '@impact/service-kit'
import { ChainStatusError, GrpcCode } from '../errors.ts'
import {
  BLOCK_BY_HEIGHT_PATH,
  encodeHeightRequest,
  FUTURE_HEIGHT,
  LATEST_BLOCK_PATH,
  lowestHeightIn,
  PRUNED_HEIGHT,
  readBlockHeight
} from './block-height.ts'
import { isLagging, preferenceOrder, tipOf, type NodeView } from './node-selection.ts'

/**
 * The chain nodes behind the gateway. Background probes read each node's tip with GetLatestBlock
 * and its lowest kept block with GetBlockByHeight; queries are balanced over the nodes that are up
 * and in sync, and height-pinned ones go to a node holding that height (node-selection.ts). A node
 * answering Unavailable is marked down and the query moves on within the same deadline (queries
 * are idempotent), as does a pinned query a node has pruned or not reached yet.
 */
export interface UpstreamPoolOptions {
  urls: string[]
  maxReceiveBytes: number
  reconnectBackoffMs: number
  healthIntervalMs: number
  /** A node more than this many blocks behind the highest tip takes no latest-height queries. */
  maxLagBlocks?: number
  /** Lowest queryable height per node URL, when the operator knows it (pruning settings). */
  earliestHeights?: ReadonlyMap<string, number>
  probeTimeoutMs?: number
  /** TLS nodes (grpcs://, https://): a private CA and a client certificate (mTLS), PEM. */
  tls?: UpstreamTls
  /** Metadata sent with every call, e.g. a commercial provider's API-key header. */
  metadata?: ReadonlyArray<[string, string]>
  onStateChange?: (url: string, up: boolean, reason?: string) => void
  /**
   * Hears of each query a node answered or failed (metrics): the node's index in `urls`, the time taken,
   * the gRPC code (0 for an answer) and, for an answer at the latest height, that height.
   */
  onCall?: (node: number, ms: number, code: number, latestHeight: string | undefined) => void
}

export interface UpstreamTls {
  ca?: Buffer | undefined
  cert?: Buffer | undefined
  key?: Buffer | undefined
}

export interface UnaryResult {
  bytes: Buffer
  /** The height the node answered at (its x-cosmos-block-height response header). */
  height: string | undefined
}

interface Upstream extends NodeView {
  index: number
  url: string
  address: string
  client: grpc.Client
  /** `earliest` comes from the configuration and is not probed. */
  earliestFixed: boolean
}

export interface UpstreamStatus {
  url: string
  up: boolean
  lagging: boolean
  latest: number | undefined
  earliest: number | undefined
}

export const HEIGHT_HEADER = 'x-cosmos-block-height'
/** Any status but these means the node is there and answering (Unimplemented included). */
const TRANSPORT_FAILURES: ReadonlySet<number> = new Set([
  GrpcCode.UNAVAILABLE,
  GrpcCode.DEADLINE_EXCEEDED,
  GrpcCode.CANCELLED
])
const identity = (value: Buffer) => value

export function parseUpstream (
  url: string,
  tlsOptions: UpstreamTls = {}
): { address: string, credentials: grpc.ChannelCredentials } {
  const match = /^(?:(grpcs|https|grpc|http):\/\/)?([^/]+?)\/?$/.exec(url.trim())
  if (match === null) throw new Error(`bad upstream address ${url}`)
  const tls = match[1] === 'grpcs' || match[1] === 'https'
  const host = match[2]!
  const hasPort = /:\d+$/.test(host) && !/^\[[^\]]+\]$/.test(host)
  return {
    address: hasPort ? host : `${host}:${tls ? 443 : 9090}`,
    credentials: tls
      ? grpc.credentials.createSsl(tlsOptions.ca ?? null, tlsOptions.key ?? null, tlsOptions.cert ?? null)
      : grpc.credentials.createInsecure()
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
  const upstreams: Upstream[] = options.urls.map((url, index) => {
    const { address, credentials } = parseUpstream(url, options.tls)
    const client = new grpc.Client(address, credentials, {
      'grpc.max_receive_message_length': options.maxReceiveBytes,
      'grpc.max_send_message_length': 4 * 1024 * 1024,
      // A node that went away is retried at least this often, so it is used again soon after it returns.
      'grpc.initial_reconnect_backoff_ms': Math.min(1000, options.reconnectBackoffMs),
      'grpc.max_reconnect_backoff_ms': options.reconnectBackoffMs,
      'grpc.enable_retries': 0
    })
    const earliest = options.earliestHeights?.get(url)
    return { index, url, address, client, up: true, latest: undefined, earliest, earliestFixed: earliest !== undefined }
  })
  const probeTimeoutMs = options.probeTimeoutMs ?? 1500
  const maxLag = options.maxLagBlocks ?? 10
  let timer: NodeJS.Timeout | undefined
  let turn = 0
  let probing: Promise<boolean[]> | undefined
  let probedAt = 0

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
      for (const [name, value] of options.metadata ?? []) metadata.set(name, value)
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

  function sawHeight (upstream: Upstream, height: string | undefined) {
    const value = height !== undefined ? Number(height) : NaN
    if (value > 0 && (upstream.latest === undefined || value > upstream.latest)) upstream.latest = value
  }

  /** A pinned query the node could not answer at `height`: remember what that says about the node. */
  function learn (upstream: Upstream, height: number, message: string): boolean {
    if (PRUNED_HEIGHT.test(message)) {
      if (!upstream.earliestFixed) upstream.earliest = Math.max(upstream.earliest ?? 0, height + 1)
      return true
    }
    if (FUTURE_HEIGHT.test(message)) {
      if (upstream.latest === undefined || upstream.latest >= height) upstream.latest = height - 1
      return true
    }
    return false
  }

  async function probeEarliest (upstream: Upstream, deadline: number) {
    try {
      await unary(upstream, BLOCK_BY_HEIGHT_PATH, encodeHeightRequest(1), undefined, deadline)
      upstream.earliest = Math.max(upstream.earliest ?? 1, 1)
    } catch (error) {
      const lowest = lowestHeightIn((error as Error).message)
      if (lowest !== undefined) upstream.earliest = Math.max(upstream.earliest ?? 0, lowest)
    }
  }

  async function probe (upstream: Upstream): Promise<boolean> {
    const deadline = Date.now() + probeTimeoutMs
    try {
      const answer = await unary(upstream, LATEST_BLOCK_PATH, new Uint8Array(0), undefined, deadline)
      mark(upstream, true)
      const height = readBlockHeight(answer.bytes)
      if (height !== undefined) upstream.latest = height
    } catch (error) {
      // Any other answer (Unimplemented included) still means the node is there.
      const code = (error as ChainStatusError).grpcCode
      const up = !TRANSPORT_FAILURES.has(code)
      mark(upstream, up, up ? undefined : (error as Error).message)
    }
    // Pruning moves a node's lowest block up over time; an archive node stays at 1.
    if (upstream.up && !upstream.earliestFixed && upstream.earliest !== 1) await probeEarliest(upstream, deadline)
    return upstream.up
  }

  async function probeAll (): Promise<boolean[]> {
    probing ??= Promise.all(upstreams.map(probe)).finally(() => {
      probing = undefined
      probedAt = Date.now()
    })
    return await probing
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
      const pinned = height !== undefined ? Number(height) : undefined
      const order = preferenceOrder(upstreams, pinned, maxLag, turn++)
      let last: ChainStatusError | undefined
      let answered: ChainStatusError | undefined
      for (const upstream of order) {
        if (Date.now() >= deadline) break
        const started = performance.now()
        try {
          const result = await unary(upstream, path, request, height, deadline)
          const latest = height === undefined ? result.height : undefined
          options.onCall?.(upstream.index, performance.now() - started, GrpcCode.OK, latest)
          mark(upstream, true)
          if (pinned === undefined) sawHeight(upstream, result.height)
          return result
        } catch (error) {
          const status = error as ChainStatusError
          options.onCall?.(upstream.index, performance.now() - started, status.grpcCode, undefined)
          if (status.grpcCode === GrpcCode.UNAVAILABLE) {
            mark(upstream, false, status.message)
            last = status
            continue
          }
          // Another node may hold a height this one pruned or has not reached yet.
          if (pinned === undefined || !status.fromNode || !learn(upstream, pinned, status.message)) throw status
          answered = status
        }
      }
      if (answered !== undefined) throw answered
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

    probeAll,

    /** Whether a node is up: the background probes' view while fresh, else probed now. */
    async anyUp (): Promise<boolean> {
      const fresh = options.healthIntervalMs > 0 && Date.now() - probedAt < options.healthIntervalMs * 2
      const states = fresh ? upstreams.map((u) => u.up) : await probeAll()
      return states.some(Boolean)
    },

    status: (): UpstreamStatus[] => {
      const tip = tipOf(upstreams)
      return upstreams.map((u) => ({
        url: u.url,
        up: u.up,
        lagging: u.up && isLagging(u, tip, maxLag),
        latest: u.latest,
        earliest: u.earliest
      }))
    },

    start () {
      if (options.healthIntervalMs <= 0 || timer !== undefined) return
      const run = () => { probeAll().catch(() => {}) }
      run()
      timer = setInterval(run, options.healthIntervalMs)
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
