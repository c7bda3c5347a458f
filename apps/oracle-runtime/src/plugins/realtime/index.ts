import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { RealtimeHub } from '../../services/realtime/hub.ts'
import { attachSocketIo } from './socket-io.ts'
import { registerWebSocket, WEBSOCKET_PATH } from './websocket.ts'

/** Routes of the realtime transports that authenticate in their own handshake, not through the HTTP hook. */
export const REALTIME_PUBLIC_ROUTES = [`GET ${WEBSOCKET_PATH}`]

export interface RealtimeOptions {
  /** The event core both transports attach their connections to. */
  hub: RealtimeHub
  maxPayloadBytes: number
  connectTimeoutMs: number
  heartbeatMs: number
}

/**
 * socket.io on `/socket.io/` and plain WebSocket on `/ws`. At preClose handshakes are refused and connections
 * closed, so clients reconnect elsewhere before the HTTP server drains.
 */
async function realtime (app: FastifyInstance, options: RealtimeOptions) {
  const { hub, maxPayloadBytes, connectTimeoutMs, heartbeatMs } = options
  const log = app.log.child({ component: 'socket.io' })
  const socketIo = attachSocketIo(app.server, hub, { maxPayloadBytes, connectTimeoutMs }, log)
  app.addHook('preClose', async () => {
    hub.beginClose()
    socketIo.close()
  })
  await registerWebSocket(app, hub, { maxPayloadBytes, authTimeoutMs: connectTimeoutMs, heartbeatMs })
  app.addHook('onClose', async () => { await hub.close() })
  hub.start()
}

/** Not encapsulated: like the HTTP server they attach to, the transports and their shutdown hooks are the app's. */
export const realtimePlugin = fp(realtime, { name: 'realtime' })
