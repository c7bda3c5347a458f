import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { IsoTimestampSchema, Nullable } from './common.ts'
import { ApprovalRequestEventSchema } from './oracle.ts'

// The spec lets servers add fields, so objects stay open (`additionalProperties` unset).

const ids = { sessionId: Type.String(), requestId: Type.String() }
const Status = Type.Union([Type.Literal('isRunning'), Type.Literal('done'), Type.Literal('error')])

export const MessageEventSchema = Type.Object({ content: Type.String(), timestamp: Type.Optional(IsoTimestampSchema) })

export const ReasoningEventSchema = Type.Object({
  ...ids,
  reasoning: Type.String(),
  reasoningDetails: Type.Optional(Type.Array(Type.Object({ type: Type.String(), text: Type.String() }))),
  isComplete: Type.Boolean(),
  timestamp: Type.Optional(IsoTimestampSchema)
})

/** Keyed by `eventId` (the tool call id). */
export const ToolCallEventSchema = Type.Object({
  ...ids,
  toolName: Type.String(),
  args: Type.Unknown(),
  status: Status,
  output: Type.Optional(Type.String()),
  error: Type.Optional(Type.String()),
  eventId: Type.String()
})

export const ActionCallEventSchema = Type.Object({
  ...ids,
  toolCallId: Type.String(),
  toolName: Type.String(),
  args: Type.Optional(Type.Unknown()),
  status: Status,
  output: Type.Optional(Type.String()),
  error: Type.Optional(Type.String())
})

/** The stream still ends with `done`. */
export const StreamErrorEventSchema = Type.Object({
  error: Type.String(),
  kind: Type.Optional(Type.String()),
  source: Type.Optional(Type.String()),
  provider: Type.Optional(Type.String()),
  providerLabel: Type.Optional(Type.String()),
  status: Type.Optional(Type.Integer()),
  retryable: Type.Optional(Type.Boolean()),
  detail: Type.Optional(Type.Unknown()),
  sessionId: Type.Optional(Type.String()),
  requestId: Type.Optional(Type.String()),
  timestamp: Type.Optional(IsoTimestampSchema)
})

/**
 * A re-authorisation prompt, not a failure: the turn goes on. Sockets get it as `delegation_required`,
 * since a turn resumed after a restart has no stream.
 */
export const DelegationRequiredEventSchema = Type.Object({
  ...ids,
  error: Type.String(),
  kind: Type.Literal('delegation_required'),
  source: Type.Optional(Type.String()),
  status: Type.Optional(Type.Integer()),
  retryable: Type.Optional(Type.Boolean()),
  detail: Type.Optional(Type.Object({
    ability: Type.Optional(Type.String({ description: 'What the oracle must be authorised for, e.g. domain/create' })),
    reason: Type.Optional(Type.String({ description: 'no_delegation, not_granted, expired, a service\'s code…' })),
    oracleDid: Type.Optional(Type.String({ description: 'The DID to delegate to' }))
  })),
  timestamp: Type.Optional(IsoTimestampSchema)
})

export const RouterUpdateEventSchema = Type.Object({
  ...ids,
  step: Type.String(),
  runId: Type.Optional(Type.String()),
  queued: Type.Optional(Type.Boolean())
})

export const RunEventSchema = Type.Object({
  ...ids,
  runId: Type.String(),
  resumed: Type.Optional(Type.Boolean()),
  attempt: Type.Optional(Type.Integer()),
  partialLength: Type.Optional(Type.Integer())
})

export const DoneEventSchema = Type.Object({
  runId: Type.Optional(Type.String()),
  messageId: Type.Optional(Type.String()),
  aborted: Type.Optional(Type.Boolean()),
  failed: Type.Optional(Type.Boolean()),
  status: Type.Optional(Type.String()),
  partialText: Type.Optional(Type.String()),
  replayed: Type.Optional(Type.Boolean()),
  awaitingApproval: Type.Optional(Type.Boolean({
    description: 'The turn stopped (its server shut down) while a tool call waited for approval; deciding it ' +
      'resumes the turn, whose events then arrive over the socket'
  }))
})

export const RenderComponentEventSchema = Type.Object({
  ...ids,
  componentName: Type.String(),
  args: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  status: Type.Optional(Type.Union([Type.Literal('isRunning'), Type.Literal('done')])),
  eventId: Type.Optional(Type.String())
})

/** Raw on the socket; answered with `tool_result`. */
export const BrowserToolCallEventSchema = Type.Object({
  ...ids,
  toolCallId: Type.String(),
  toolName: Type.String(),
  args: Type.Record(Type.String(), Type.Unknown())
})

export const MessageCacheInvalidationEventSchema = Type.Object({ ...ids, status: Type.Optional(Type.Literal('done')) })

// ── socket.io: diagnostics (server → client) ────────────────────────────────────────────────

export const SocketConnectedEventSchema = Type.Object({
  message: Type.String(),
  sessionId: Type.String(),
  timestamp: IsoTimestampSchema
})
export const SocketPongEventSchema = Type.Object({ timestamp: IsoTimestampSchema, sessionId: Type.String() })
export const SocketStatusEventSchema = Type.Object({
  connected: Type.Boolean(),
  sessionId: Type.String(),
  activeSessions: Type.Integer(),
  totalConnections: Type.Integer(),
  timestamp: IsoTimestampSchema
})
export const SocketSubscribedEventSchema = Type.Object({
  sessionId: Type.String(),
  events: Type.Optional(Type.Array(Type.String(), { description: 'Optional events this connection opted into' })),
  timestamp: IsoTimestampSchema
})
export const SocketAvailableEventsSchema = Type.Object({
  clientEvents: Type.Array(Type.String()),
  serverEvents: Type.Array(Type.String()),
  optionalEvents: Type.Optional(Type.Array(Type.String())),
  sessionId: Type.String(),
  timestamp: IsoTimestampSchema
})

// ── socket.io: client → server ──────────────────────────────────────────────────────────────
// Looser than what this repo's client sends: SDK 1.4.0 clients leave out `sessionId` and `result` and send
// `error: null`, and SDK versions add fields over time.

const SocketSessionIdSchema = Type.String({ minLength: 1, maxLength: 200 })

export const SocketSubscribeSchema = Type.Object({
  sessionId: Type.Optional(SocketSessionIdSchema),
  events: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 16 }))
})
export type SocketSubscribe = Static<typeof SocketSubscribeSchema>

/** `sessionId` defaults to the connection's. */
export const ToolResultSchema = Type.Object({
  toolCallId: Type.String({ minLength: 1, maxLength: 200 }),
  sessionId: Type.Optional(SocketSessionIdSchema),
  result: Type.Optional(Type.Unknown()),
  error: Type.Optional(Nullable(Type.String({ maxLength: 10_000 })))
})
export type ToolResult = Static<typeof ToolResultSchema>

/** On failure `result` is `{ success: false, error }`. */
export const ActionCallResultSchema = ToolResultSchema
export type ActionCallResult = ToolResult

export const EventEnvelopeSchema = <N extends string, P extends TSchema>(name: N, payload: P) =>
  Type.Object({ eventName: Type.Literal(name), payload })

export const OracleEventPayloadSchemas = {
  message: MessageEventSchema,
  reasoning: ReasoningEventSchema,
  tool_call: ToolCallEventSchema,
  action_call: ActionCallEventSchema,
  error: StreamErrorEventSchema,
  done: DoneEventSchema,
  run: RunEventSchema,
  'router.update': RouterUpdateEventSchema,
  router_update: RouterUpdateEventSchema,
  render_component: RenderComponentEventSchema,
  browser_tool_call: BrowserToolCallEventSchema,
  message_cache_invalidation: MessageCacheInvalidationEventSchema,
  approval_request: ApprovalRequestEventSchema,
  delegation_required: DelegationRequiredEventSchema,
  connected: SocketConnectedEventSchema,
  pong: SocketPongEventSchema,
  status: SocketStatusEventSchema,
  subscribed: SocketSubscribedEventSchema,
  'available-events': SocketAvailableEventsSchema
}
export type OracleEventName = keyof typeof OracleEventPayloadSchemas
export type OracleEventPayloads = { [K in OracleEventName]: Static<(typeof OracleEventPayloadSchemas)[K]> }

/** Clients drop any other name; `approval_request` is this runtime's addition (SDK 1.4.0 drops it). */
export const SSE_EVENT_NAMES = [
  'message',
  'reasoning',
  'tool_call',
  'action_call',
  'error',
  'done',
  'run',
  'router.update',
  'render_component',
  'browser_tool_call',
  'message_cache_invalidation',
  'approval_request'
] as const satisfies readonly OracleEventName[]
export type SseEventName = (typeof SSE_EVENT_NAMES)[number]

export const SOCKET_CLIENT_EVENTS = [
  'ping',
  'status',
  'subscribe',
  'list-events',
  'tool_result',
  'action_call_result'
] as const
/** Sent only after `subscribe { events: [...] }`. */
export const SOCKET_OPTIONAL_EVENTS = ['reasoning'] as const
export type SocketOptionalEventName = (typeof SOCKET_OPTIONAL_EVENTS)[number]
export const SOCKET_SERVER_EVENTS = [
  'connected', 'pong', 'status', 'subscribed', 'available-events',
  'render_component', 'tool_call', 'action_call', 'browser_tool_call', 'router_update', 'message_cache_invalidation',
  'approval_request', 'delegation_required',
  ...SOCKET_OPTIONAL_EVENTS,
  // A client message the server refused (bad payload, session not subscribed, unknown event).
  'error'
] as const
