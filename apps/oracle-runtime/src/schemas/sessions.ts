import { Type, type Static } from '@sinclair/typebox'
import { DidSchema, IsoTimestampSchema } from '@impact/schemas'

export const SessionIdSchema = Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\s/]+$', description: 'Opaque session id (`s_<uuid>`)' })
export const SessionParamsSchema = Type.Object({ sessionId: SessionIdSchema })
export const SessionIdParamsSchema = Type.Object({ id: SessionIdSchema })

export const ChatSessionSchema = Type.Object({
  sessionId: SessionIdSchema,
  title: Type.String(),
  createdAt: IsoTimestampSchema,
  lastUpdatedAt: IsoTimestampSchema,
  oracleName: Type.String(),
  oracleDid: DidSchema
}, { $id: 'ChatSession' })

export const MAX_SESSIONS_PAGE = 100
export const SessionListQuerySchema = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: MAX_SESSIONS_PAGE, default: 20 }),
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })
}, { additionalProperties: false })

export const SessionListSchema = Type.Object({
  sessions: Type.Array(Type.Ref(ChatSessionSchema)),
  total: Type.Integer({ minimum: 0 })
})

export const SessionDeletedSchema = Type.Object({ message: Type.Literal('Session deleted successfully') })
export type SessionListQuery = Static<typeof SessionListQuerySchema>
