import type { App } from '@impact/service-kit'
import type { RealtimeHub } from './hub.ts'
import { attachSocketIo } from './socket-io.ts'
import { registerWebSocket, WEBSOCKET_PATH } from './websocket.ts'

export { createRealtimeHub, type RealtimeHub, type Connection } from './hub.ts'
export { SOCKET_IO_PATH } from './socket-io.ts'
export { WEBSOCKET_PATH } from './websocket.ts'

/** Routes of the realtime transports that authenticate in their own handshake, not through the HTTP hook. */
export const REALTIME_PUBLIC_ROUTES = [`GET ${WEBSOCKET_PATH}`]

export interface RealtimeOptions {
  maxPayloadBytes: number
  connectTimeoutMs: number
  heartbeatMs: number
}

/**
 * Puts both WebSocket transports of the hub on the app: socket.io on `/socket.io/` and the plain
 * endpoint on `/ws`. Shutdown: at preClose new handshakes are refused and every connection is
 * closed so clients reconnect elsewhere; the HTTP server (Fastify's) then drains as usual.
 */
export async function registerRealtime (app: App, hub: RealtimeHub, options: RealtimeOptions) {
  const socketIo = attachSocketIo(app.server, hub, { maxPayloadBytes: options.maxPayloadBytes, connectTimeoutMs: options.connectTimeoutMs }, app.log.child({ component: 'socket.io' }))
  app.addHook('preClose', async () => {
    hub.beginClose()
    socketIo.close()
  })
  await registerWebSocket(app, hub, { maxPayloadBytes: options.maxPayloadBytes, authTimeoutMs: options.connectTimeoutMs, heartbeatMs: options.heartbeatMs })
  app.addHook('onClose', async () => { await hub.close() })
  hub.start()
}
