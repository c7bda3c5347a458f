import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { IsoTimestampSchema, Nullable } from './common.ts'
import { ApprovalRequestEventSchema } from './oracle.ts'

/**
 * Payloads of the oracle's streamed (SSE, oracle-wire §3.3) and socket.io (§6) events. The spec
 * allows servers to add fields, so objects stay open (`additionalProperties` unset).
 */

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

/** A tool invocation and later its result, keyed by `eventId` (the tool call id). */
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

/** An error after the stream opened; the stream still ends with `done`. */
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
 * The oracle needs the user to authorise it (again) for what a tool call needs: the spec's re-authorisation
 * prompt, on which the client mints a fresh delegation and stores it (`POST /delegation`). A prompt, not a
 * failure: the turn goes on and the model answers. On SSE it is an `error` event of this kind; the session's
 * sockets get it as `delegation_required` (a turn resumed after a restart has no stream).
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

/** Ends a turn. */
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

/** Raw on the socket: run the named browser tool and answer `tool_result`. */
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
// These are what the runtime accepts, which is looser than what this repo's client sends: SDK 1.4.0
// clients leave out `sessionId` (the connection's session) and `result` and send `error: null`.
// Extra keys are tolerated too, as SDK versions add fields (timestamps) over time.

const SocketSessionIdSchema = Type.String({ minLength: 1, maxLength: 200 })

/** `subscribe`: join another of the user's sessions and/or opt into optional events (`reasoning`). */
export const SocketSubscribeSchema = Type.Object({
  sessionId: Type.Optional(SocketSessionIdSchema),
  events: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 16 }))
})
export type SocketSubscribe = Static<typeof SocketSubscribeSchema>

/**
 * `tool_result`: `result` on success; `result: null` and `error` on failure. `sessionId` defaults to the
 * connection's.
 */
export const ToolResultSchema = Type.Object({
  toolCallId: Type.String({ minLength: 1, maxLength: 200 }),
  sessionId: Type.Optional(SocketSessionIdSchema),
  result: Type.Optional(Type.Unknown()),
  error: Type.Optional(Nullable(Type.String({ maxLength: 10_000 })))
})
export type ToolResult = Static<typeof ToolResultSchema>

/**
 * `action_call_result`: the same shape; on failure `result` is `{ success: false, error }` and `error` repeats
 * the text.
 */
export const ActionCallResultSchema = ToolResultSchema
export type ActionCallResult = ToolResult

/** The socket envelope of generic events: `{ eventName, payload }` emitted under the event's own name. */
export const EventEnvelopeSchema = <N extends string, P extends TSchema>(name: N, payload: P) =>
  Type.Object({ eventName: Type.Literal(name), payload })

/** Payload schema of every named event, by wire name (SSE and socket). */
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

/**
 * Event names an SSE reply may carry (§3.2); anything else is dropped by clients. `approval_request` is this
 * runtime's addition (SDK 1.4.0 drops it; its clients see the pending approval in history instead).
 */
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

/** The socket.io catalogue (§6), as `available-events` lists it. */
export const SOCKET_CLIENT_EVENTS = [
  'ping',
  'status',
  'subscribe',
  'list-events',
  'tool_result',
  'action_call_result'
] as const
/** Events a connection receives only after asking for them (`subscribe { events: [...] }`). */
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
