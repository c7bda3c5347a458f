import { Type } from '@sinclair/typebox'
import { decodeCursor, encodeCursor, HistoryPageSchema, HistoryQuerySchema, RunReplySchema } from '@impact/schemas'
import type { FastifyPluginAsyncTypebox } from '@impact/service-kit'
import type { Kysely } from 'kysely'
import { historyPage, toDto } from '../../db/repositories/messages.ts'
import { findSession } from '../../db/repositories/sessions.ts'
import { CursorConflictError, InvalidCursorError, SessionNotFoundError } from '../../errors.ts'
import { SessionIdParamsSchema } from '../../schemas/session-params.ts'
import { AUTH_ERRORS, SECURITY } from '../../schemas/security.ts'
import type { DB } from '../../db/types.ts'
import type { Approvals } from '../../services/approvals.ts'
import type { OracleIdentity } from '../../services/oracle-identity.ts'

function cursorSeq (cursor: string | undefined): number | undefined {
  if (cursor === undefined) return undefined
  const [seq] = decodeCursor(cursor) ?? []
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0) throw new InvalidCursorError()
  return seq
}
const cursor = (seq: number | null) => (seq === null ? null : encodeCursor([seq]))

export interface HistoryRoutesOptions {
  db: Kysely<DB>
  identity: Pick<OracleIdentity, 'did'>
  /** Each page lists the session's approvals still waiting for the user. */
  approvals: Pick<Approvals, 'pending'>
}

/** Paged history by turns (oracle-wire §5) and the active-run probe (no durable runs: always null). */
export const historyRoutes: FastifyPluginAsyncTypebox<HistoryRoutesOptions> = async (app, options) => {
  const { db, identity, approvals } = options
  app.get('/sessions/:id/messages', {
    schema: {
      tags: ['messages'],
      summary: 'A page of history by turns: newest first page, then `before=prevCursor` for older, ' +
        '`after=nextCursor` for newer; `pendingApprovals` lists the tool calls waiting for the user',
      security: SECURITY,
      params: SessionIdParamsSchema,
      querystring: HistoryQuerySchema,
      response: { 200: HistoryPageSchema, 400: Type.Ref('ErrorBody'), 404: Type.Ref('ErrorBody'), ...AUTH_ERRORS }
    }
  }, async (request) => {
    const { limit, before, after } = request.query
    if (before !== undefined && after !== undefined) throw new CursorConflictError()
    const session = await findSession(db, request.auth?.did as string, request.params.id, identity.did)
    if (session === undefined) throw new SessionNotFoundError()
    const beforeSeq = cursorSeq(before)
    const afterSeq = cursorSeq(after)
    const [page, pendingApprovals] = await Promise.all([
      historyPage(db, session.sessionId, {
        limit,
        ...(beforeSeq !== undefined ? { before: beforeSeq } : {}),
        ...(afterSeq !== undefined ? { after: afterSeq } : {})
      }),
      approvals.pending(session.sessionId)
    ])
    return {
      messages: page.messages.map(toDto),
      prevCursor: cursor(page.prevCursor),
      nextCursor: cursor(page.nextCursor),
      hasOlder: page.hasOlder,
      hasNewer: page.hasNewer,
      pendingApprovals
    }
  })

  app.get('/sessions/:id/run', {
    schema: {
      tags: ['messages'],
      summary: 'The session\'s active durable run: always null (this runtime streams each answer on its request)',
      security: SECURITY,
      params: SessionIdParamsSchema,
      response: { 200: RunReplySchema, 404: Type.Ref('ErrorBody'), ...AUTH_ERRORS }
    }
  }, async (request) => {
    const session = await findSession(db, request.auth?.did as string, request.params.id, identity.did)
    if (session === undefined) throw new SessionNotFoundError()
    return { run: null }
  })
}
