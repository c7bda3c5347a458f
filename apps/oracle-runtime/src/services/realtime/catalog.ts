import { SOCKET_OPTIONAL_EVENTS, type SocketOptionalEventName } from '@impact/schemas'
import type { RuntimeEvent, RuntimeEventName } from '../event-bus.ts'

/** `data` is the raw payload or the `{ eventName, payload }` envelope. */
export interface WireEvent { name: string, data: unknown }

// Raw events make the SDK run the tool on each one, so only the call goes out, never its status updates.
// `delegation_required` goes to sockets too: like approvals it must reach a turn that has no stream.
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
