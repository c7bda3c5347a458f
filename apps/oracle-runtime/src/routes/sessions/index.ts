import { Type } from '@sinclair/typebox'
import { ChatSessionSchema, SessionDeletedSchema, SessionListQuerySchema, SessionListSchema } from '@impact/schemas'
import type { FastifyPluginAsyncTypebox } from '@impact/service-kit'
import type { Kysely } from 'kysely'
import type { Config } from '../../config.ts'
import { createSession, deleteSession, listSessions } from '../../db/repositories/sessions.ts'
import { SessionNotFoundError } from '../../errors.ts'
import { callerDid } from '../../plugins/ucan-auth.ts'
import { SessionParamsSchema } from '../../schemas/session-params.ts'
import { protectedSchema } from '../../schemas/security.ts'
import type { DB } from '../../db/types.ts'
import type { OracleIdentity } from '../../services/oracle-identity.ts'
import type { TurnRegistry } from '../../services/turn-registry.ts'

export interface SessionRoutesOptions {
  db: Kysely<DB>
  identity: Pick<OracleIdentity, 'did'>
  config: Pick<Config, 'ORACLE_NAME'>
  /** Deleting a session cancels its running turn, on whichever replica it runs. */
  turns: Pick<TurnRegistry, 'cancelSession'>
}

export const sessionRoutes: FastifyPluginAsyncTypebox<SessionRoutesOptions> = async (app, options) => {
  const { db, identity, config, turns } = options
  app.post('/sessions', {
    schema: protectedSchema('sessions', {
      summary: 'Start a chat session (no body needed)',
      response: { 201: Type.Ref(ChatSessionSchema) }
    })
  }, async (request, reply) => {
    const session = await createSession(db, {
      did: callerDid(request),
      oracleName: config.ORACLE_NAME,
      oracleDid: identity.did
    })
    return await reply.code(201).send(session)
  })

  app.get('/sessions', {
    schema: protectedSchema('sessions', {
      summary: 'The caller\'s sessions, most recently active first',
      querystring: SessionListQuerySchema,
      response: { 200: SessionListSchema, 400: Type.Ref('ErrorBody') }
    })
  }, async (request) => await listSessions(db, callerDid(request), request.query, identity.did))

  app.delete('/sessions/:sessionId', {
    schema: protectedSchema('sessions', {
      summary: 'Delete a session and its messages',
      params: SessionParamsSchema,
      response: { 200: SessionDeletedSchema, 404: Type.Ref('ErrorBody') }
    })
  }, async (request) => {
    const { sessionId } = request.params
    if (!await deleteSession(db, callerDid(request), sessionId)) throw new SessionNotFoundError()
    // The session is gone either way; a turn that cannot be reached now finds out at its next write.
    await turns.cancelSession(sessionId).catch((err: unknown) => {
      request.log.warn({ err, sessionId }, 'could not cancel the session\'s turn')
    })
    return { message: 'Session deleted successfully' as const }
  })
}
