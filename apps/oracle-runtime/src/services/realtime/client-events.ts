import type { TSchema, Static } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import {
  ActionCallResultSchema,
  SOCKET_CLIENT_EVENTS,
  SOCKET_OPTIONAL_EVENTS,
  SOCKET_SERVER_EVENTS,
  SocketSubscribeSchema,
  ToolResultSchema
} from '@impact/schemas'
import type { Kysely } from 'kysely'
import { findSession } from '../../db/repositories/sessions.ts'
import type { DB } from '../../db/types.ts'
import type { ClientToolPort } from '../client-tools.ts'
import { isOptional } from './catalog.ts'
import type { Attached } from './hub.ts'

/** The outcome of a client message (a socket.io acknowledgement, a plain-WebSocket `ack`). */
export type Ack = { ok: true } | { ok: false, error: string, code: string }

export interface ClientEventDeps {
  db: Kysely<DB>
  oracleDid: string
  clientTools: ClientToolPort
  stats: () => { totalConnections: number, activeSessions: number }
  /** Adds a session (already checked to be the caller's) to the connection; false when it closed meanwhile. */
  subscribe: (sessionId: string) => Promise<boolean>
}

const OK: Ack = { ok: true }
const refused = (error: string, code: string): Ack => ({ ok: false, error, code })
const now = () => new Date().toISOString()

function parse<T extends TSchema> (schema: T, payload: unknown): { value: Static<T> } | { problem: string } {
  if (Value.Check(schema, payload)) return { value: payload }
  const first = Value.Errors(schema, payload).First()
  const where = first?.path !== undefined && first.path !== '' ? first.path : 'payload'
  return { problem: `${where} ${first?.message ?? 'is invalid'}`.trim() }
}

/**
 * What each client → server event does (oracle-wire §6). Diagnostics answer the sender only;
 * tool and action results are accepted only for a session the connection was admitted or
 * subscribed to (so only from its owner), and reach the waiting turn on any replica.
 */
export async function handleClientEvent (
  deps: ClientEventDeps,
  member: Attached,
  name: string,
  payload: unknown
): Promise<Ack> {
  const { conn } = member
  const sessionId = conn.sessionId
  switch (name) {
    case 'ping':
      conn.send('pong', { timestamp: now(), sessionId })
      return OK
    case 'status':
      conn.send('status', { connected: true, sessionId, ...deps.stats(), timestamp: now() })
      return OK
    case 'list-events':
      conn.send('available-events', {
        clientEvents: SOCKET_CLIENT_EVENTS,
        serverEvents: SOCKET_SERVER_EVENTS,
        optionalEvents: SOCKET_OPTIONAL_EVENTS,
        sessionId,
        timestamp: now()
      })
      return OK
    case 'subscribe': {
      const parsed = parse(SocketSubscribeSchema, payload ?? {})
      if ('problem' in parsed) return refused(`Invalid subscribe: ${parsed.problem}`, 'ORACLE_WS_INVALID_PAYLOAD')
      const { events = [] } = parsed.value
      const unknown = events.find((event) => !isOptional(event))
      if (unknown !== undefined) {
        return refused(
          `Unknown optional event ${unknown}; optional events: ${SOCKET_OPTIONAL_EVENTS.join(', ')}`,
          'ORACLE_WS_UNKNOWN_EVENT'
        )
      }
      const target = parsed.value.sessionId ?? sessionId
      if (!member.sessions.has(target)) {
        if ((await findSession(deps.db, conn.did, target, deps.oracleDid)) === undefined) {
          return refused('Session not found', 'ORACLE_SESSION_NOT_FOUND')
        }
        if (!(await deps.subscribe(target))) return refused('Connection closed', 'ORACLE_WS_CLOSED')
      }
      if (events.length > 0) member.optional = new Set([...(member.optional ?? []), ...events])
      conn.send('subscribed', {
        sessionId: target,
        ...(member.optional !== undefined ? { events: [...member.optional] } : {}),
        timestamp: now()
      })
      return OK
    }
    case 'tool_result':
    case 'action_call_result': {
      const parsed = parse(name === 'tool_result' ? ToolResultSchema : ActionCallResultSchema, payload)
      if ('problem' in parsed) return refused(`Invalid ${name}: ${parsed.problem}`, 'ORACLE_WS_INVALID_PAYLOAD')
      const { toolCallId, result, error } = parsed.value
      const target = parsed.value.sessionId ?? sessionId
      if (!member.sessions.has(target)) {
        return refused(
          'Results are accepted only for the sessions this connection joined',
          'ORACLE_WS_FORBIDDEN_SESSION'
        )
      }
      await deps.clientTools.resolve({
        sessionId: target,
        toolCallId,
        result: result ?? null,
        ...(typeof error === 'string' ? { error } : {})
      })
      return OK
    }
    default:
      return refused(`Unknown event ${name}; send list-events for the catalog`, 'ORACLE_WS_UNKNOWN_EVENT')
  }
}
