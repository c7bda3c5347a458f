import { SOCKET_CLIENT_EVENTS } from '@impact/schemas'
import { SpanKind, TRACING_OFF, type Tracing } from '@impact/service-kit'
import type { SharedState } from '@impact/shared-state'
import { RealtimeCredentialExpiredError, RealtimeCredentialRevokedError } from '../../errors.ts'
import type { ClientToolPort } from '../client-tools.ts'
import type { EventBus } from '../event-bus.ts'
import type { Revocations } from '../revocations.ts'
import { admit, type AdmissionDeps, type HandshakeRequest } from './admission.ts'
import { isOptional, toWire, type WireEvent } from './catalog.ts'
import { handleClientEvent, type Ack } from './client-events.ts'
import { createSessionChannels } from './session-channels.ts'

/**
 * The event core both WebSocket transports share. A transport admits a handshake here, attaches
 * the connection with a `send(name, data)` of its own, and hands every client message to
 * `handle`; everything else (payloads, the event catalog, subscriptions, fan-out, tool results)
 * lives here, once.
 *
 * Fan-out: runtime bus events of a turn are delivered to this replica's connections of the
 * session at once and published to the other replicas (`session-channels.ts`), so an event
 * reaches the user's sockets whichever replica runs the turn. Client tool results go the other
 * way through `clientTools.resolve` (shared-state pub/sub too).
 */

export interface Connection {
  readonly id: string
  readonly transport: 'socket.io' | 'websocket'
  /** The authenticated user (from the UCAN, never from the query). */
  readonly did: string
  /** The session the handshake was admitted to. */
  readonly sessionId: string
  /** Unix seconds at which the credential it was admitted with expires: the connection is closed then. */
  readonly expiration: number
  /** CIDs of that credential: the connection is closed when one of them is revoked. */
  readonly cids: string[]
  /** The `traceparent` the client opened the connection under: the parent of its messages' spans. */
  readonly traceparent?: string | undefined
  send: (name: string, data: unknown) => void
  /** Ends the connection from the server side (after an `error` event saying why); `code` is that reason's code. */
  close: (code: string) => void
}

export interface Attached {
  readonly conn: Connection
  /** Sessions this connection receives events of and may answer tool calls for. */
  readonly sessions: Set<string>
  /** Optional events it asked for (`subscribe { events }`); most connections never ask. */
  optional: Set<string> | undefined
  closed: boolean
  expiry?: NodeJS.Timeout
}

export interface HubDeps extends AdmissionDeps {
  bus: EventBus
  clientTools: ClientToolPort
  state: SharedState
  revocations?: Pick<Revocations, 'onRevoked'>
  /** A span per client message, so what it sets off (a tool result resuming a turn) is traced. */
  tracing?: Tracing
}

const KNOWN_EVENTS: ReadonlySet<string> = new Set(SOCKET_CLIENT_EVENTS)

const now = () => new Date().toISOString()
// setTimeout fires at once beyond this delay (about 24.8 days), and a delegation may live 30 days.
const MAX_DELAY_MS = 2 ** 31 - 1
type Ending = new () => Error & { code: string }

export function createRealtimeHub (deps: HubDeps) {
  const tracing = deps.tracing ?? TRACING_OFF
  const attached = new Map<Connection, Attached>()
  const bySession = new Map<string, Set<Attached>>()
  let closing = false
  let stopBus: (() => void) | undefined
  let stopRevocations: (() => void) | undefined
  const channels = createSessionChannels({ state: deps.state, log: deps.log, deliver })
  const { acquire, release } = channels

  function deliver (sessionId: string, event: WireEvent) {
    const members = bySession.get(sessionId)
    if (members === undefined) return
    const optional = isOptional(event.name)
    for (const member of members) {
      if (optional && member.optional?.has(event.name) !== true) continue
      try {
        member.conn.send(event.name, event.data)
      } catch (err) {
        // One broken connection must not keep the event from the others.
        deps.log.warn({ err, connection: member.conn.id }, 'realtime send failed')
      }
    }
  }

  function join (member: Attached, sessionId: string) {
    member.sessions.add(sessionId)
    let members = bySession.get(sessionId)
    if (members === undefined) bySession.set(sessionId, members = new Set())
    members.add(member)
  }

  /** Closes the member's connection when its credential expires (re-armed past the longest timer delay). */
  function armExpiry (member: Attached) {
    const left = member.conn.expiration * 1000 - Date.now()
    member.expiry = setTimeout(() => {
      if (left > MAX_DELAY_MS) armExpiry(member)
      else hub.end(member.conn, RealtimeCredentialExpiredError)
    }, Math.max(0, Math.min(left, MAX_DELAY_MS)))
    member.expiry.unref()
  }

  async function handleMessage (conn: Connection, name: string, payload: unknown, ack?: (reply: Ack) => void) {
    const member = attached.get(conn)
    let reply: Ack
    if (member === undefined) {
      reply = { ok: false, error: 'Not connected yet', code: 'ORACLE_WS_NOT_READY' }
    } else {
      try {
        reply = await handleClientEvent({
          ...deps,
          stats: hub.stats,
          subscribe: async (sessionId) => {
            if (member.sessions.has(sessionId)) return true
            await acquire(sessionId)
            // Gone meanwhile, or the same session subscribed twice at once: drop the extra hold.
            if (member.closed || member.sessions.has(sessionId)) {
              release(sessionId)
              return !member.closed
            }
            join(member, sessionId)
            return true
          }
        }, member, name, payload)
      } catch (err) {
        deps.log.error({ err, event: name }, 'realtime client event failed')
        reply = { ok: false, error: 'The server failed to handle the event', code: 'ORACLE_WS_INTERNAL' }
      }
    }
    if (ack !== undefined) ack(reply)
    else if (!reply.ok) {
      conn.send('error', {
        event: name,
        message: reply.error,
        code: reply.code,
        sessionId: conn.sessionId,
        timestamp: now()
      })
    }
  }

  const hub = {
    get closing () { return closing },
    /** Connections on this replica, and the sessions they span. */
    stats: () => ({ totalConnections: attached.size, activeSessions: bySession.size }),

    async admit (request: HandshakeRequest) {
      return await admit(deps, { closing, connections: attached.size }, request)
    },

    /** Registers an admitted connection and greets it with `connected`; false when it went away meanwhile. */
    async attach (conn: Connection): Promise<boolean> {
      const member: Attached = { conn, sessions: new Set(), optional: undefined, closed: false }
      attached.set(conn, member)
      try {
        await acquire(conn.sessionId)
      } catch (err) {
        deps.log.error({ err, sessionId: conn.sessionId }, 'realtime channel subscription failed')
        hub.detach(conn)
        return false
      }
      if (member.closed) {
        release(conn.sessionId)
        return false
      }
      join(member, conn.sessionId)
      armExpiry(member)
      deps.log.debug(
        { connection: conn.id, transport: conn.transport, sessionId: conn.sessionId, did: conn.did },
        'realtime connection attached'
      )
      conn.send('connected', { message: 'Connected successfully', sessionId: conn.sessionId, timestamp: now() })
      return true
    },

    detach (conn: Connection) {
      const member = attached.get(conn)
      if (member === undefined || member.closed) return
      member.closed = true
      clearTimeout(member.expiry)
      attached.delete(conn)
      for (const sessionId of member.sessions) {
        const members = bySession.get(sessionId)
        members?.delete(member)
        if (members?.size === 0) bySession.delete(sessionId)
        release(sessionId)
      }
    },

    /** Tells the connection why it ends (an `error` event), closes it and lets it go. */
    end (conn: Connection, Reason: Ending) {
      if (attached.get(conn)?.closed !== false) return
      const { message, code } = new Reason()
      deps.log.info({ connection: conn.id, transport: conn.transport, code }, 'realtime connection ended by the server')
      try {
        conn.send('error', { message, code, sessionId: conn.sessionId, timestamp: now() })
        conn.close(code)
      } finally {
        hub.detach(conn)
      }
    },

    /**
     * One client message. `ack` (socket.io acknowledgement, WS message id) gets the outcome;
     * otherwise a refusal is sent as `error`.
     */
    async handle (conn: Connection, name: string, payload: unknown, ack?: (reply: Ack) => void): Promise<void> {
      // The client names the event: other names share one span name, so they cannot flood the trace store.
      const event = KNOWN_EVENTS.has(name) ? name : 'unknown'
      // The connection's traceparent, else a trace per message (never the context the socket happens to run in).
      const carrier = conn.traceparent !== undefined ? { traceparent: conn.traceparent } : {}
      await tracing.inSpan(`${conn.transport} ${event}`, { kind: SpanKind.SERVER, carrier }, async () => {
        await handleMessage(conn, name, payload, ack)
      })
    },

    start () {
      stopBus = deps.bus.subscribe({}, (event) => {
        const wire = toWire(event)
        if (wire === undefined) return
        deliver(event.sessionId, wire)
        channels.publish(event.sessionId, wire)
      })
      stopRevocations = deps.revocations?.onRevoked((cids) => {
        const revoked = new Set(cids)
        for (const member of [...attached.values()]) {
          if (member.conn.cids.some((cid) => revoked.has(cid))) hub.end(member.conn, RealtimeCredentialRevokedError)
        }
      })
    },

    /** Refuses new handshakes from now on (shutdown has begun). */
    beginClose () {
      closing = true
    },

    async close () {
      closing = true
      stopBus?.()
      stopRevocations?.()
      for (const conn of [...attached.keys()]) hub.detach(conn)
    }
  }
  return hub
}

export type RealtimeHub = ReturnType<typeof createRealtimeHub>
