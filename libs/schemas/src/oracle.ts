import { Type, type Static } from '@sinclair/typebox'
import { DidSchema, IsoTimestampSchema, Nullable } from './common.ts'

/**
 * The oracle runtime's REST wire shapes (shared/notes/oracle-wire.md §2–§5, §7, §8), shared by the
 * server (apps/oracle-runtime) and its clients (libs/oracle-client). Constraints are the server's:
 * a client that builds requests from these types sends what the server accepts.
 */

// ── Sessions ────────────────────────────────────────────────────────────────────────────────

export const SessionIdSchema = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '^[^\\s/]+$',
  description: 'Opaque session id (`s_<uuid>`)'
})

export const ChatSessionSchema = Type.Object({
  sessionId: SessionIdSchema,
  title: Type.String(),
  createdAt: IsoTimestampSchema,
  lastUpdatedAt: IsoTimestampSchema,
  oracleName: Type.String(),
  oracleDid: DidSchema
}, { $id: 'ChatSession' })
export type ChatSession = Static<typeof ChatSessionSchema>

export const MAX_SESSIONS_PAGE = 100
export const SessionListQuerySchema = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: MAX_SESSIONS_PAGE, default: 20 }),
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })
}, { additionalProperties: false })
export type SessionListQuery = Static<typeof SessionListQuerySchema>

export const SessionListSchema = Type.Object({
  sessions: Type.Array(Type.Ref(ChatSessionSchema)),
  total: Type.Integer({ minimum: 0 })
})
export type SessionList = Static<typeof SessionListSchema>

export const SessionDeletedSchema = Type.Object({ message: Type.Literal('Session deleted successfully') })
export type SessionDeleted = Static<typeof SessionDeletedSchema>

// ── Sending a message ───────────────────────────────────────────────────────────────────────

export const ToolDeclarationSchema = Type.Object(
  {
    name: Type.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$', description: 'Tool name as the model will call it' }),
    description: Type.String({ maxLength: 4000 }),
    schema: Type.Record(Type.String(), Type.Unknown(), {
      description: 'JSON schema of the arguments (degenerate `{"$schema": …}` accepted)'
    })
  },
  { additionalProperties: true }
)
export type ToolDeclaration = Static<typeof ToolDeclarationSchema>

export const ActionDeclarationSchema = Type.Object({
  name: Type.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$' }),
  description: Type.String({ maxLength: 4000 }),
  schema: Type.Record(Type.String(), Type.Unknown()),
  hasRender: Type.Optional(Type.Boolean())
}, { additionalProperties: true })
export type ActionDeclaration = Static<typeof ActionDeclarationSchema>

export const AttachmentSchema = Type.Object({
  mxcUri: Type.Optional(Type.String({ pattern: '^mxc://', maxLength: 500 })),
  eventId: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  filename: Type.String({ minLength: 1, maxLength: 255 }),
  mimetype: Type.String({ minLength: 1, maxLength: 255 }),
  size: Type.Optional(Type.Integer({ minimum: 0 }))
}, { additionalProperties: false, anyOf: [{ required: ['mxcUri'] }, { required: ['eventId'] }] })
export type Attachment = Static<typeof AttachmentSchema>

export const MAX_ATTACHMENTS = 10

/** SendMessageDto: exactly the keys the spec and the SDK use; anything else is a 400. */
export const SendMessageSchema = Type.Object(
  {
    message: Type.String({
      minLength: 1,
      maxLength: 100_000,
      pattern: '\\S',
      description: "The user's message (not blank)"
    }),
    stream: Type.Optional(Type.Boolean({ description: 'true: answer as an SSE stream' })),
    returnAllMessages: Type.Optional(Type.Boolean({ description: 'Non-stream only: include the whole transcript' })),
    model: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'One of GET /models' })),
    tools: Type.Optional(Type.Array(ToolDeclarationSchema, { maxItems: 64, description: 'Browser tools' })),
    agActions: Type.Optional(Type.Array(ActionDeclarationSchema, { maxItems: 64, description: 'AG-UI actions' })),
    attachments: Type.Optional(Type.Array(AttachmentSchema, { maxItems: MAX_ATTACHMENTS })),
    mcpInvocations: Type.Optional(
      Type.Record(
        Type.String({ maxLength: 200 }),
        Type.String({ maxLength: 8192, pattern: '^[A-Za-z0-9+/]+={0,2}$' }),
        { description: 'MCP tool name → base64 CAR invocation' }
      )
    ),
    timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    homeServer: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    requestId: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9._:-]{1,128}$' }))
  },
  { additionalProperties: false }
)
export type SendMessage = Static<typeof SendMessageSchema>

// ── Tool approvals ──────────────────────────────────────────────────────────────────────────

/**
 * Where a tool call that changes state stands: `pending` until the user decides (`approved`, `denied`), the
 * request times out (`expired`), or its turn ends first (`cancelled`: aborted, the session deleted, or a new
 * message sent instead of an answer).
 */
export const ApprovalStatusSchema = Type.Union([
  Type.Literal('pending'),
  Type.Literal('approved'),
  Type.Literal('denied'),
  Type.Literal('expired'),
  Type.Literal('cancelled')
])
export type ApprovalStatus = Static<typeof ApprovalStatusSchema>

const toolApprovalFields = {
  toolCallId: Type.String({ description: 'The tool call waiting for approval; the id of POST /approvals/:toolCallId' }),
  sessionId: Type.String(),
  requestId: Type.String({ description: 'The turn that made the call' }),
  toolName: Type.String(),
  args: Type.Unknown({ description: 'The arguments the agent chose' }),
  summary: Type.String({ description: 'What the call would do, in words for the user' }),
  status: ApprovalStatusSchema,
  reason: Type.Optional(Type.String({ description: 'Why the user denied it, when they said' })),
  createdAt: IsoTimestampSchema,
  expiresAt: IsoTimestampSchema,
  decidedAt: Type.Optional(IsoTimestampSchema)
}

/** A tool call that waits (or waited) for the user's approval: listed with history, answered with POST /approvals. */
export const ToolApprovalSchema = Type.Object(toolApprovalFields, { $id: 'ToolApproval' })
export type ToolApproval = Static<typeof ToolApprovalSchema>

/** The `approval_request` event (SSE and socket): the same record, sent as it is asked for and as it is settled. */
export const ApprovalRequestEventSchema = Type.Object(toolApprovalFields)

export const ApprovalParamsSchema = Type.Object({ toolCallId: Type.String({ minLength: 1, maxLength: 200 }) })

/** POST /approvals/:toolCallId */
export const ApprovalDecisionSchema = Type.Object({
  sessionId: Type.String({ minLength: 1, maxLength: 200 }),
  approved: Type.Boolean(),
  reason: Type.Optional(Type.String({ maxLength: 500, description: 'Told to the agent when the call is denied' }))
}, { additionalProperties: false })
export type ApprovalDecision = Static<typeof ApprovalDecisionSchema>

// ── Messages and history ────────────────────────────────────────────────────────────────────

export const ToolCallRecordSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  args: Type.Unknown(),
  status: Type.Union([Type.Literal('done'), Type.Literal('error')]),
  output: Type.String()
})
export type ToolCallRecord = Static<typeof ToolCallRecordSchema>

export const MessageDtoSchema = Type.Object({
  id: Type.String(),
  type: Type.Union([Type.Literal('human'), Type.Literal('ai')]),
  content: Type.String(),
  createdAt: IsoTimestampSchema,
  toolCalls: Type.Optional(Type.Array(ToolCallRecordSchema)),
  reasoning: Type.Optional(Type.String()),
  isComplete: Type.Optional(Type.Boolean()),
  attachments: Type.Optional(Type.Array(Type.Unknown())),
  metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown()))
}, { $id: 'MessageDto' })
export type MessageDto = Static<typeof MessageDtoSchema>

/** The non-stream reply of POST /messages/:sessionId (§4). */
export const SendMessageReplySchema = Type.Object({
  message: Type.Object({ type: Type.Literal('ai'), content: Type.String(), id: Type.String() }),
  sessionId: Type.String(),
  requestId: Type.String(),
  aborted: Type.Optional(Type.Boolean()),
  messages: Type.Optional(Type.Array(Type.Ref(MessageDtoSchema)))
})
export type SendMessageReply = Static<typeof SendMessageReplySchema>

export const LegacyHistorySchema = Type.Object({
  messages: Type.Array(Type.Ref(MessageDtoSchema)),
  pendingApprovals: Type.Optional(Type.Array(Type.Ref(ToolApprovalSchema)))
})
export type LegacyHistory = Static<typeof LegacyHistorySchema>

export const MAX_HISTORY_PAGE = 100
export const HistoryQuerySchema = Type.Object(
  {
    limit: Type.Integer({
      minimum: 1,
      maximum: MAX_HISTORY_PAGE,
      default: 20,
      description: 'Turns per page (a human message and its answers)'
    }),
    before: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    after: Type.Optional(Type.String({ minLength: 1, maxLength: 200 }))
  },
  { additionalProperties: false }
)
export type HistoryQuery = Static<typeof HistoryQuerySchema>

export const HistoryPageSchema = Type.Object({
  messages: Type.Array(Type.Ref(MessageDtoSchema)),
  prevCursor: Nullable(Type.String()),
  nextCursor: Nullable(Type.String()),
  hasOlder: Type.Boolean(),
  hasNewer: Type.Boolean(),
  pendingApprovals: Type.Optional(Type.Array(Type.Ref(ToolApprovalSchema), {
    description: 'Tool calls of the session waiting for the user\'s approval (this runtime always sends the list)'
  }))
})
export type HistoryPage = Static<typeof HistoryPageSchema>

export const AbortBodySchema = Type.Object(
  { sessionId: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false }
)
export const AbortReplySchema = Type.Object({ success: Type.Boolean() })
export type AbortReply = Static<typeof AbortReplySchema>
export const RunReplySchema = Type.Object({ run: Type.Null() })

// ── Delegation, preferences, payment, models ────────────────────────────────────────────────

export const StoreDelegationSchema = Type.Object({
  raw: Type.String({ minLength: 1, maxLength: 16_384, description: 'Base64 UCAN delegation CAR (user → this oracle)' }),
  issuer: Type.Optional(Type.String({ maxLength: 512, description: 'Ignored: derived from the token' })),
  audience: Type.Optional(Type.String({ maxLength: 512, description: 'Ignored: derived from the token' })),
  expiration: Type.Optional(Type.Number({ description: 'Ignored: derived from the token' }))
}, { additionalProperties: false })
export type StoreDelegation = Static<typeof StoreDelegationSchema>

export const CapabilitySchema = Type.Object({ can: Type.String(), with: Type.String() })
export type Capability = Static<typeof CapabilitySchema>
export const StoreDelegationReplySchema = Type.Object({
  ok: Type.Literal(true),
  expiration: Type.Integer({ description: 'Unix seconds: the earliest expiry in the chain' })
})
export type StoreDelegationReply = Static<typeof StoreDelegationReplySchema>
export const DelegationStatusSchema = Type.Object({
  authorized: Type.Boolean(),
  expiration: Type.Optional(Type.Integer()),
  capabilities: Type.Optional(Type.Array(CapabilitySchema))
})
export type DelegationStatus = Static<typeof DelegationStatusSchema>
export const RevokeReplySchema = Type.Object({ ok: Type.Literal(true) })
export type RevokeReply = Static<typeof RevokeReplySchema>

export const FORMALITIES = [
  'casual',
  'friendly',
  'neutral',
  'semi-formal',
  'professional',
  'formal',
  'technical',
  'academic'
] as const

const preferenceFields = {
  agentName: Type.Optional(
    Type.String({ minLength: 1, maxLength: 80, description: 'What the user wants to call the agent' })
  ),
  userName: Type.Optional(
    Type.String({ minLength: 1, maxLength: 80, description: 'What the agent should call the user' })
  ),
  language: Type.Optional(
    Type.String({ minLength: 1, maxLength: 20, description: 'Language to answer in (name or BCP 47 tag)' })
  ),
  tone: Type.Optional(
    Type.String({ minLength: 1, maxLength: 80, description: 'Tone of voice, e.g. warm, direct, playful' })
  ),
  formality: Type.Optional(
    Type.Union(
      FORMALITIES.map((f) => Type.Literal(f)),
      { description: 'Register of the answers' }
    )
  ),
  customInstructions: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 2000,
      description:
        'Standing behaviour instructions, e.g. answer length or format. Not one-turn requests, not facts about the user'
    })
  )
}

/** The stored preferences record (§8); `GET /user-preferences` answers it or JSON null. */
export const UserPreferencesSchema = Type.Object(
  { ...preferenceFields, updatedAt: Type.Optional(IsoTimestampSchema) },
  { additionalProperties: false }
)
export type UserPreferences = Static<typeof UserPreferencesSchema>

/** Arguments of the `set_user_preferences` tool: the same fields minus updatedAt, all optional. */
export const SetPreferencesArgsSchema = Type.Object(preferenceFields, { additionalProperties: false })

/** 402 before a stream opens (§7): `claims` for the SDK's streaming path, `outstandingClaims` for its JSON path. */
export const PaymentRequiredSchema = Type.Object({
  statusCode: Type.Literal(402),
  error: Type.String(),
  message: Type.String(),
  code: Type.Optional(Type.String()),
  claims: Type.Array(Type.String()),
  outstandingClaims: Type.Array(Type.String())
})
export type PaymentRequired = Static<typeof PaymentRequiredSchema>

export const ModelInfoSchema = Type.Object({
  id: Type.String(),
  label: Type.String(),
  family: Type.String(),
  tier: Type.String(),
  costLabel: Type.String(),
  badge: Type.String(),
  blurb: Type.String(),
  vision: Type.Boolean(),
  isDefault: Type.Boolean(),
  pricing: Type.Object({
    inputPerMillion: Type.Number(),
    outputPerMillion: Type.Number(),
    currency: Type.Literal('USD'),
    unit: Type.Literal('per_million_tokens')
  })
})
export type ModelInfo = Static<typeof ModelInfoSchema>
export const ModelListSchema = Type.Object({ models: Type.Array(ModelInfoSchema), default: Nullable(Type.String()) })
export type ModelList = Static<typeof ModelListSchema>
