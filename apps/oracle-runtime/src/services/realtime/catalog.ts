import { SOCKET_OPTIONAL_EVENTS, type SocketOptionalEventName } from '@impact/schemas'
import type { RuntimeEvent, RuntimeEventName } from '../event-bus.ts'

/**
 * The WebSocket event catalog (oracle-wire §6) and how runtime bus events become socket events.
 * Both transports (socket.io and the plain WebSocket endpoint) send exactly these; the event names
 * and client payloads are in @impact/schemas (oracle-events.ts).
 */

/** A server → client event ready for the wire: `data` is the raw payload or the `{ eventName, payload }` envelope. */
export interface WireEvent { name: string, data: unknown }

/**
 * Socket-bound bus events. `browser_tool_call` and `action_call` travel raw (the SDK runs the tool
 * on every one it receives, so only the call itself goes out, never its later status updates);
 * the others travel in the envelope the SDK's `onAny` reads. `message`, `error` and `done` stay
 * on the SSE stream of the turn, except the re-authorisation prompt (an `error` of kind
 * `delegation_required`), which the sockets get as `delegation_required`: like `approval_request`,
 * it must reach the user when the turn has no stream (resumed after a restart, or its stream dropped).
 */
const RAW: Partial<Record<RuntimeEventName, true>> = { browser_tool_call: true, action_call: true }
const ENVELOPED: Partial<Record<RuntimeEventName, true>> = {
  tool_call: true,
  render_component: true,
  router_update: true,
  message_cache_invalidation: true,
  reasoning: true,
  approval_request: true
}

export function toWire (event: RuntimeEvent): WireEvent | undefined {
  if (RAW[event.name] === true) {
    if (event.name === 'action_call' && event.data.status !== 'isRunning') return undefined
    return { name: event.name, data: event.data }
  }
  const name = event.name === 'error' && event.data.kind === 'delegation_required'
    ? 'delegation_required'
    : ENVELOPED[event.name] === true ? event.name : undefined
  if (name === undefined) return undefined
  // Plugins may emit bare payloads; the envelope always names the session and request it belongs to.
  return {
    name,
    data: { eventName: name, payload: { ...event.data, sessionId: event.sessionId, requestId: event.requestId } }
  }
}

export const isOptional = (name: string): name is SocketOptionalEventName =>
  (SOCKET_OPTIONAL_EVENTS as readonly string[]).includes(name)
