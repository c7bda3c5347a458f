import { Type, type Static } from '@sinclair/typebox'
import { IsoTimestampSchema, Nullable } from '@impact/schemas'

const ToolDeclarationSchema = Type.Object({
  name: Type.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$', description: 'Tool name as the model will call it' }),
  description: Type.String({ maxLength: 4000 }),
  schema: Type.Record(Type.String(), Type.Unknown(), { description: 'JSON schema of the arguments (degenerate `{"$schema": …}` accepted)' })
}, { additionalProperties: true })

const ActionDeclarationSchema = Type.Object({
  name: Type.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$' }),
  description: Type.String({ maxLength: 4000 }),
  schema: Type.Record(Type.String(), Type.Unknown()),
  hasRender: Type.Optional(Type.Boolean())
}, { additionalProperties: true })

const AttachmentSchema = Type.Object({
  mxcUri: Type.Optional(Type.String({ pattern: '^mxc://', maxLength: 500 })),
  eventId: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  filename: Type.String({ minLength: 1, maxLength: 255 }),
  mimetype: Type.String({ minLength: 1, maxLength: 255 }),
  size: Type.Optional(Type.Integer({ minimum: 0 }))
}, { additionalProperties: false, anyOf: [{ required: ['mxcUri'] }, { required: ['eventId'] }] })

/** SendMessageDto: exactly the keys the spec and the SDK use; anything else is a 400. */
export const SendMessageSchema = Type.Object({
  message: Type.String({ minLength: 1, maxLength: 100_000, pattern: '\\S', description: 'The user\'s message (not blank)' }),
  stream: Type.Optional(Type.Boolean({ description: 'true: answer as an SSE stream' })),
  returnAllMessages: Type.Optional(Type.Boolean({ description: 'Non-stream only: include the whole transcript' })),
  model: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'One of GET /models' })),
  tools: Type.Optional(Type.Array(ToolDeclarationSchema, { maxItems: 64, description: 'Browser tools' })),
  agActions: Type.Optional(Type.Array(ActionDeclarationSchema, { maxItems: 64, description: 'AG-UI actions' })),
  attachments: Type.Optional(Type.Array(AttachmentSchema, { maxItems: 10 })),
  mcpInvocations: Type.Optional(Type.Record(Type.String({ maxLength: 200 }), Type.String({ maxLength: 8192, pattern: '^[A-Za-z0-9+/]+={0,2}$' }), { description: 'MCP tool name → base64 CAR invocation' })),
  timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  homeServer: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  requestId: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9._:-]{1,128}$' }))
}, { additionalProperties: false })
export type SendMessage = Static<typeof SendMessageSchema>

const ToolCallRecordSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  args: Type.Unknown(),
  status: Type.Union([Type.Literal('done'), Type.Literal('error')]),
  output: Type.String()
})

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

export const SendMessageReplySchema = Type.Object({
  message: Type.Object({ type: Type.Literal('ai'), content: Type.String(), id: Type.String() }),
  sessionId: Type.String(),
  requestId: Type.String(),
  aborted: Type.Optional(Type.Boolean()),
  messages: Type.Optional(Type.Array(Type.Ref(MessageDtoSchema)))
})

export const LegacyHistorySchema = Type.Object({ messages: Type.Array(Type.Ref(MessageDtoSchema)) })

export const HistoryQuerySchema = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Turns per page (a human message and its answers)' }),
  before: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  after: Type.Optional(Type.String({ minLength: 1, maxLength: 200 }))
}, { additionalProperties: false })

export const HistoryPageSchema = Type.Object({
  messages: Type.Array(Type.Ref(MessageDtoSchema)),
  prevCursor: Nullable(Type.String()),
  nextCursor: Nullable(Type.String()),
  hasOlder: Type.Boolean(),
  hasNewer: Type.Boolean()
})

export const AbortBodySchema = Type.Object({ sessionId: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false })
export const AbortReplySchema = Type.Object({ success: Type.Boolean() })
export const RunReplySchema = Type.Object({ run: Type.Null() })

export const PaymentRequiredSchema = Type.Object({
  statusCode: Type.Literal(402),
  error: Type.String(),
  message: Type.String(),
  code: Type.Optional(Type.String()),
  claims: Type.Array(Type.String()),
  outstandingClaims: Type.Array(Type.String())
})

export const SseTimestamp = IsoTimestampSchema
