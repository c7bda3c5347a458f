import websocket from '@fastify/websocket'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { WebSocket } from 'ws'
import { invalidArgument } from '../../errors.ts'
import type { BlockEvent, BlockFeed } from '../../services/block-feed.ts'

/** Not a rule of any proto: a literal path under the tendermint service, beating its `/blocks/{height}`. */
export const BLOCK_STREAM_PATH = '/cosmos/base/tendermint/v1beta1/blocks/stream'
/** Comments keep proxies from closing a quiet stream between blocks. */
const HEARTBEAT_MS = 15_000

export interface BlockStreamOptions {
  feed: BlockFeed
  /** A client with more than this many bytes unsent is dropped instead of buffered further. */
  maxBufferBytes: number
  /** false when GetLatestBlock is not allowed (CHAIN_METHODS_*): the path then answers 404 like others. */
  enabled: boolean
}

/** Last-Event-ID (SSE reconnection) or `?last_event_id=` (WebSocket, first connection): a height. */
function resumeFrom (request: FastifyRequest): number | undefined {
  const header = request.headers['last-event-id']
  const query = (request.query as Record<string, unknown>).last_event_id
  const raw = (Array.isArray(header) ? header[0] : header) ?? (Array.isArray(query) ? query[0] : query)
  if (raw === undefined || raw === '') return undefined
  if (typeof raw !== 'string' || !/^\d{1,15}$/.test(raw)) {
    throw invalidArgument('invalid Last-Event-ID: expected a block height')
  }
  return Number(raw)
}

/**
 * New blocks as Server-Sent Events (`id` = height, `event: block`, `data` = the block JSON) and, on
 * the same path, as WebSocket text messages (the block JSON), all fed by one upstream feed.
 */
export async function blockStreamRoutes (app: FastifyInstance, options: BlockStreamOptions) {
  if (!options.enabled) return
  await app.register(websocket, { options: { maxPayload: 1024 } })
  const { feed, maxBufferBytes } = options

  function sse (request: FastifyRequest, reply: FastifyReply) {
    const after = resumeFrom(request)
    const res = reply.raw
    reply.hijack()
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no'
    })
    res.write(': blocks\n\n')
    let unsubscribe = () => {}
    const drop = () => {
      unsubscribe()
      clearInterval(heartbeat)
    }
    const send = (event: BlockEvent) => {
      if (res.writableLength > maxBufferBytes) {
        drop()
        res.destroy()
        return
      }
      res.write(`id: ${event.height}\nevent: block\ndata: ${event.data}\n\n`)
    }
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS)
    heartbeat.unref()
    res.on('close', drop)
    unsubscribe = feed.subscribe(send, after)
  }

  function ws (socket: WebSocket, request: FastifyRequest) {
    let after: number | undefined
    try {
      after = resumeFrom(request)
    } catch (error) {
      socket.close(1008, (error as Error).message)
      return
    }
    let unsubscribe = () => {}
    const send = (event: BlockEvent) => {
      if (socket.bufferedAmount > maxBufferBytes) {
        unsubscribe()
        socket.terminate()
        return
      }
      socket.send(event.data)
    }
    socket.on('close', () => unsubscribe())
    // Clients have nothing to say; anything they send is ignored.
    socket.on('message', () => {})
    unsubscribe = feed.subscribe(send, after)
  }

  app.route({
    method: 'GET',
    url: BLOCK_STREAM_PATH,
    schema: { hide: true },
    handler: sse,
    wsHandler: ws
  })
}
