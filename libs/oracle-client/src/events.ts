import type { OracleEventName, OracleEventPayloads } from '@impact/schemas'

/** `eventName` is the wire name (`router.update` on SSE, `router_update` on the socket). */
export type OracleEvent = {
  [K in OracleEventName]: { eventName: K, payload: OracleEventPayloads[K], source: 'sse' | 'socket', id?: number }
}[OracleEventName]

export type OracleEventOf<K extends OracleEventName> = Extract<OracleEvent, { eventName: K }>
export type OracleEventListener = (event: OracleEvent) => void

export type { OracleEventName, OracleEventPayloads }

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** Servers may add fields, so only cheap shape checks; `undefined` when it cannot be the named event. */
export function toOracleEvent (
  eventName: string,
  payload: unknown,
  source: 'sse' | 'socket',
  id?: number
): OracleEvent | undefined {
  if (!isRecord(payload)) return undefined
  const str = (key: string) => typeof payload[key] === 'string'
  switch (eventName) {
    case 'message': if (!str('content')) return undefined; break
    case 'reasoning': if (!str('reasoning')) return undefined; break
    case 'tool_call': if (!str('toolName') || !str('status')) return undefined; break
    case 'action_call':
    case 'browser_tool_call': if (!str('toolName') || !str('toolCallId')) return undefined; break
    case 'error': if (!str('error')) return undefined; break
    case 'render_component': if (!str('componentName')) return undefined; break
    case 'approval_request': if (!str('toolCallId') || !str('status') || !str('sessionId')) return undefined; break
    case 'delegation_required': if (!str('error') || !str('sessionId')) return undefined; break
    case 'run': if (!str('runId')) return undefined; break
    case 'done': case 'router.update': case 'router_update': case 'message_cache_invalidation':
    case 'connected': case 'pong': case 'status': case 'subscribed': case 'available-events':
      break
    default:
      return undefined
  }
  return { eventName, payload, source, ...(id !== undefined ? { id } : {}) } as OracleEvent
}
