import { randomUUID } from 'node:crypto'
import { EventEmitter } from 'node:events'
import websocket, { type WebSocket } from '@fastify/websocket'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import { headerCredentials } from '../ucan-auth.ts'
import type { HandshakeRequest, Refusal } from '../../services/realtime/admission.ts'
import type { Connection, RealtimeHub } from '../../services/realtime/hub.ts'
import { isSocketIoRequest } from './socket-io.ts'

export const WEBSOCKET_PATH = '/ws'

export interface WebSocketOptions {
  maxPayloadBytes: number
  /** How long a connection may take to send its `auth` message. */
  authTimeoutMs: number
  /** Protocol ping interval; a connection that missed the previous pong is dropped. */
  heartbeatMs: number
}

/** A client that reads slower than events arrive is dropped rather than buffered without bound. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024

interface Envelope { event: string, data?: unknown, id?: string | number }

function parseEnvelope (raw: string): Envelope | undefined {
  try {
    const value = JSON.parse(raw) as Partial<Envelope> | null
    if (typeof value !== 'object' || value === null || typeof value.event !== 'string') return undefined
    if (value.id !== undefined && typeof value.id !== 'string' && typeof value.id !== 'number') return undefined
    return value as Envelope
  } catch {
    return undefined
  }
}

/**
 * The plain-WebSocket transport of the event core, for clients without socket.io: `GET /ws`,
 * every frame a JSON `{ event, data }` carrying the same events and payloads as socket.io.
 * Credentials come as HTTP headers on the upgrade (exactly the HTTP rule) or in a first message
 * `{ event: 'auth', data: { sessionId?, invocation?, ucanDelegation? } }`; never in the URL,
 * which proxies and logs keep. A client message with an `id` is answered `{ event: 'ack', data: { id, ok, … } }`.
 */
export async function registerWebSocket (app: FastifyInstance, hub: RealtimeHub, options: WebSocketOptions) {
  // socket.io and @fastify/websocket both listen for upgrades; socket.io's never reach this plugin.
  const upgrades = new EventEmitter()
  app.server.on('upgrade', (request, socket, head) => {
    if (!isSocketIoRequest(request.url)) upgrades.emit('upgrade', request, socket, head)
  })
  await app.register(websocket, {
    options: { maxPayload: options.maxPayloadBytes, server: upgrades as never, perMessageDeflate: false },
    preClose () {
      // Going away (1001): clients reconnect, to another replica behind the load balancer.
      for (const client of app.websocketServer.clients) client.close(1001, 'server shutting down')
    }
  })

  const heartbeat = setInterval(() => {
    for (const client of app.websocketServer.clients) {
      const tracked = client as WebSocket & { alive?: boolean }
      if (tracked.alive === false) { client.terminate(); continue }
      tracked.alive = false
      client.ping()
    }
  }, options.heartbeatMs)
  heartbeat.unref()
  app.addHook('onClose', async () => { clearInterval(heartbeat) })

  app.get(WEBSOCKET_PATH, {
    websocket: true,
    schema: { querystring: Type.Object({ sessionId: Type.Optional(Type.String({ maxLength: 200 })) }) }
  }, (socket, request) => {
    const tracked = socket as WebSocket & { alive?: boolean }
    tracked.alive = true
    socket.on('pong', () => { tracked.alive = true })
    const log = request.log
    const query = request.query as { sessionId?: string }
    const send = (event: string, data: unknown) => {
      if (socket.readyState !== socket.OPEN) return
      if (socket.bufferedAmount > MAX_BUFFERED_BYTES) { socket.terminate(); return }
      socket.send(JSON.stringify({ event, data }))
    }
    const refuse = (refusal: Refusal) => {
      log.info({ code: refusal.code, transport: 'websocket' }, 'realtime handshake refused')
      send('connect_error', refusal)
      socket.close(4000 + refusal.statusCode, refusal.code)
    }

    let conn: Connection | undefined
    let settled = false
    const timer = setTimeout(() => {
      if (settled) return
      refuse({
        message: 'No auth message in time: ' +
          'send { "event": "auth", "data": { "invocation" | "ucanDelegation", "sessionId"? } } first',
        code: 'ORACLE_WS_AUTH_TIMEOUT',
        statusCode: 408
      })
    }, options.authTimeoutMs)

    const admitWith = async (handshake: HandshakeRequest) => {
      settled = true
      clearTimeout(timer)
      const admission = await hub.admit(handshake)
      if (admission.refusal !== undefined) { refuse(admission.refusal); return }
      if (socket.readyState !== socket.OPEN) return
      const { did, sessionId, expiration, cids } = admission.ok
      const close = (code: string) => { socket.close(4401, code) }
      const traceparent = typeof request.headers.traceparent === 'string' ? request.headers.traceparent : undefined
      conn = { id: randomUUID(), transport: 'websocket', did, sessionId, expiration, cids, traceparent, send, close }
      await hub.attach(conn)
    }

    // Messages are handled one at a time, in order (a result never overtakes the auth before it).
    let queue = Promise.resolve()
    const onMessage = async (raw: string, isBinary: boolean) => {
      const envelope = isBinary ? undefined : parseEnvelope(raw)
      if (!settled) {
        const data = (envelope?.event === 'auth' ? envelope.data : undefined) as Record<string, unknown> | undefined
        await admitWith({
          sessionId: data?.sessionId ?? query.sessionId,
          invocation: data?.invocation,
          delegation: data?.ucanDelegation
        })
        return
      }
      if (conn === undefined) return
      if (envelope === undefined) {
        send('error', {
          message: 'Each message must be a JSON object { "event": string, "data"?: any, "id"?: string | number }',
          code: 'ORACLE_WS_INVALID_MESSAGE',
          sessionId: conn.sessionId,
          timestamp: new Date().toISOString()
        })
        return
      }
      const { id } = envelope
      await hub.handle(
        conn,
        envelope.event,
        envelope.data,
        id === undefined ? undefined : (reply) => { send('ack', { id, ...reply }) }
      )
    }
    socket.on('message', (raw: Buffer, isBinary: boolean) => {
      queue = queue.then(async () => { await onMessage(raw.toString('utf8'), isBinary) })
        .catch((err: unknown) => {
          log.error({ err }, 'realtime message failed')
          socket.close(1011, 'internal error')
        })
    })
    socket.on('close', () => {
      clearTimeout(timer)
      settled = true
      if (conn !== undefined) hub.detach(conn)
    })

    const headers = headerCredentials(request)
    if (headers.invocation !== undefined || headers.delegation !== undefined) {
      const handshake = { sessionId: query.sessionId, invocation: headers.invocation, delegation: headers.delegation }
      queue = queue.then(async () => { await admitWith(handshake) })
        .catch((err: unknown) => {
          log.error({ err }, 'realtime handshake failed')
          socket.close(1011, 'internal error')
        })
    }
  })
}
