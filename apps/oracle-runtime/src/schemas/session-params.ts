import { Type } from '@sinclair/typebox'
import { SessionIdSchema } from '@impact/schemas'

// Route params are this app's own; the wire types of sessions and messages live in @impact/schemas.
export const SessionParamsSchema = Type.Object({ sessionId: SessionIdSchema })
export const SessionIdParamsSchema = Type.Object({ id: SessionIdSchema })
