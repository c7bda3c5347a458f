import { Type, type Static } from '@sinclair/typebox'
import type { RuntimeEvent, RuntimeEventName } from '../services/event-bus.ts'

/**
 * The WebSocket event catalog (oracle-wire §6) and how runtime bus events become socket events.
 * Both transports (socket.io and the plain WebSocket endpoint) send exactly these.
 */

export const CLIENT_EVENTS = ['ping', 'status', 'subscribe', 'list-events', 'tool_result', 'action_call_result'] as const
export type ClientEventName = typeof CLIENT_EVENTS[number]

/** Events a connection receives only after asking for them (`subscribe { events: [...] }`). */
export const OPTIONAL_EVENTS = ['reasoning'] as const
export type OptionalEventName = typeof OPTIONAL_EVENTS[number]

export const SERVER_EVENTS = [
  'connected', 'pong', 'status', 'subscribed', 'available-events',
  'render_component', 'tool_call', 'action_call', 'browser_tool_call', 'router_update', 'message_cache_invalidation',
  ...OPTIONAL_EVENTS,
  // A client message the server refused (bad payload, session not subscribed, unknown event).
  'error'
] as const

/** A server → client event ready for the wire: `data` is the raw payload or the `{ eventName, payload }` envelope. */
export interface WireEvent { name: string, data: unknown }

/**
 * Socket-bound bus events. `browser_tool_call` and `action_call` travel raw (the SDK runs the tool
 * on every one it receives, so only the call itself goes out, never its later status updates);
 * the others travel in the envelope the SDK's `onAny` reads. `message`, `error` and `done` stay
 * on the SSE stream of the turn.
 */
const RAW: Partial<Record<RuntimeEventName, true>> = { browser_tool_call: true, action_call: true }
const ENVELOPED: Partial<Record<RuntimeEventName, true>> = {
  tool_call: true, render_component: true, router_update: true, message_cache_invalidation: true, reasoning: true
}

export function toWire (event: RuntimeEvent): WireEvent | undefined {
  if (RAW[event.name] === true) {
    if (event.name === 'action_call' && event.data.status !== 'isRunning') return undefined
    return { name: event.name, data: event.data }
  }
  if (ENVELOPED[event.name] !== true) return undefined
  // Plugins may emit bare payloads; the envelope always names the session and request it belongs to.
  return { name: event.name, data: { eventName: event.name, payload: { ...event.data, sessionId: event.sessionId, requestId: event.requestId } } }
}

export const isOptional = (name: string): name is OptionalEventName => (OPTIONAL_EVENTS as readonly string[]).includes(name)

const SessionIdSchema = Type.String({ minLength: 1, maxLength: 200 })
const ToolCallIdSchema = Type.String({ minLength: 1, maxLength: 200 })
const ResultErrorSchema = Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()])

// Client payloads. Extra keys are tolerated: SDK versions add fields (timestamps) over time.
export const SubscribeSchema = Type.Object({
  sessionId: Type.Optional(SessionIdSchema),
  events: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 16 }))
})
export const ToolResultSchema = Type.Object({
  toolCallId: ToolCallIdSchema,
  sessionId: Type.Optional(SessionIdSchema),
  result: Type.Optional(Type.Unknown()),
  error: Type.Optional(ResultErrorSchema)
})
export const ActionCallResultSchema = ToolResultSchema

export type SubscribeMessage = Static<typeof SubscribeSchema>
export type ToolResultMessage = Static<typeof ToolResultSchema>
