import type { FastifyBaseLogger } from 'fastify'
import type { Server as HttpServer } from 'node:http'
import { Server, type Socket } from 'socket.io'
import type { Admitted } from '../../services/realtime/admission.ts'
import type { Connection, RealtimeHub } from '../../services/realtime/hub.ts'

export const SOCKET_IO_PATH = '/socket.io/'

/** Whether an HTTP request (upgrade) is socket.io's, by the same prefix test engine.io applies. */
export const isSocketIoRequest = (url: string | undefined) => url?.startsWith(SOCKET_IO_PATH) === true

export interface SocketData { admitted: Admitted, traceparent?: string | undefined }

/** A client's trace: `auth.traceparent` (browsers cannot set WebSocket headers) or the `traceparent` header. */
function traceparentOf (auth: Record<string, unknown> | undefined, headers: Record<string, unknown>) {
  const value = auth?.traceparent ?? headers.traceparent
  return typeof value === 'string' && value.length <= 256 ? value : undefined
}
type OracleSocket = Socket<Record<string, never>, Record<string, never>, Record<string, never>, SocketData>

export interface SocketIoOptions {
  /** Largest client message, in bytes (tool results included). */
  maxPayloadBytes: number
  /** How long a connection may take to complete the socket.io handshake. */
  connectTimeoutMs: number
}

/** socket.io v4 on the app's server, websocket transport only: long-polling would need sticky sessions. */
export function attachSocketIo (
  server: HttpServer,
  hub: RealtimeHub,
  options: SocketIoOptions,
  log: FastifyBaseLogger
) {
  const io = new Server<Record<string, never>, Record<string, never>, Record<string, never>, SocketData>(server, {
    path: SOCKET_IO_PATH,
    transports: ['websocket'],
    serveClient: false,
    maxHttpBufferSize: options.maxPayloadBytes,
    connectTimeout: options.connectTimeoutMs,
    // Other upgrades (the plain WebSocket endpoint) are not engine.io's to destroy.
    destroyUpgrade: false,
    // Once shutdown begins, new connections are refused before any work is done for them.
    allowRequest: (_request, answer) => { answer(hub.closing ? 'server shutting down' : null, !hub.closing) }
  })

  io.use((socket, next) => {
    const auth = socket.handshake.auth as Record<string, unknown> | undefined
    const handshake = {
      sessionId: socket.handshake.query.sessionId,
      invocation: auth?.invocation,
      delegation: auth?.ucanDelegation
    }
    hub.admit(handshake)
      .then((admission) => {
        if (admission.ok !== undefined) {
          socket.data.admitted = admission.ok
          socket.data.traceparent = traceparentOf(auth, socket.handshake.headers)
          // The tokens were needed for this check only; a long-lived socket does not carry them around.
          socket.handshake.auth = {}
          next()
          return
        }
        const { message, code, statusCode } = admission.refusal
        log.info({ code, transport: 'socket.io' }, 'realtime handshake refused')
        next(Object.assign(new Error(message), { data: { code, statusCode } }))
        // socket.io writes CONNECT_ERROR on the next tick; close the connection once it is out.
        setImmediate(() => { socket.conn.close() })
      }, (err: unknown) => {
        log.error({ err }, 'realtime handshake failed')
        const data = { code: 'ORACLE_WS_INTERNAL', statusCode: 500 }
        next(Object.assign(new Error('The server failed to check the handshake'), { data }))
        setImmediate(() => { socket.conn.close() })
      })
  })

  io.on('connection', (socket: OracleSocket) => {
    const { admitted: { did, sessionId, expiration, cids }, traceparent } = socket.data
    // The room is the session (oracle-wire §6); fan-out itself goes through the event core.
    socket.join(sessionId)?.catch(() => {})
    const conn: Connection = {
      id: socket.id,
      transport: 'socket.io',
      did,
      sessionId,
      expiration,
      cids,
      traceparent,
      send: (name, data) => { (socket.emit as (event: string, ...args: unknown[]) => boolean)(name, data) },
      // A server-side disconnect: socket.io clients do not reconnect on their own, they need fresh credentials.
      close: () => { socket.disconnect(true) }
    }
    socket.onAny((event: string, ...args: unknown[]) => {
      const ack = typeof args.at(-1) === 'function' ? args.pop() as (reply: unknown) => void : undefined
      hub.handle(conn, event, args[0], ack).catch(() => {})
    })
    socket.on('disconnect', () => { hub.detach(conn) })
    hub.attach(conn).catch(() => {})
  })

  return {
    io,
    /** Transport-closes every connection so clients reconnect elsewhere; `io.close()` would close Fastify's server. */
    close () {
      io.engine.close()
    }
  }
}
