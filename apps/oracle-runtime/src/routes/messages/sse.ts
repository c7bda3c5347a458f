import type { FastifyReply, FastifyRequest } from 'fastify'

export interface SseStream {
  /** Writes one frame: an `event:` line and a single-line `data:` (the SDK keeps only the last data line). */
  send: (event: string, data: unknown) => void
  end: () => void
  readonly closed: boolean
  /** Called once when the client goes away before `end()`. */
  onDisconnect: (listener: () => void) => void
}

/**
 * Takes over the response for a Server-Sent Events stream. Headers already set on the reply by
 * hooks (X-Request-Id, CORS) are kept; headers are flushed at once, followed by a heartbeat
 * comment, and a heartbeat goes out every `heartbeatMs` so proxies keep the stream open.
 */
export function openSse (
  request: FastifyRequest,
  reply: FastifyReply,
  options: { requestId: string, heartbeatMs: number }
): SseStream {
  reply.hijack()
  const res = reply.raw
  const headers: Record<string, string | number | string[]> = {}
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name] = value
  res.writeHead(200, {
    ...headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    'x-content-type-options': 'nosniff',
    'x-request-id': options.requestId
  })
  res.flushHeaders()
  res.write(': heartbeat\n\n')
  let closed = false
  const listeners: Array<() => void> = []
  const heartbeat = setInterval(() => { if (!closed) res.write(': heartbeat\n\n') }, options.heartbeatMs)
  heartbeat.unref()
  const stop = () => {
    if (closed) return false
    closed = true
    clearInterval(heartbeat)
    return true
  }
  res.on('close', () => {
    // Closed before we ended it: the client went away.
    if (!res.writableEnded && stop()) for (const listener of listeners) listener()
  })
  // A long answer must not be cut by an idle-socket timeout (light-my-request's fake socket has none).
  const socket = request.raw.socket as { setTimeout?: (ms: number) => void } | undefined
  if (typeof socket?.setTimeout === 'function') socket.setTimeout(0)
  return {
    send (event, data) {
      if (closed) return
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
    },
    end () {
      stop()
      if (!res.writableEnded) res.end()
    },
    get closed () {
      return closed
    },
    onDisconnect (listener) {
      listeners.push(listener)
    }
  }
}
