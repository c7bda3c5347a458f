import { Type } from '@sinclair/typebox'
import { decodeCursor, encodeCursor, HistoryPageSchema, HistoryQuerySchema, RunReplySchema } from '@impact/schemas'
import type { FastifyPluginAsyncTypebox } from '@impact/service-kit'
import type { Kysely } from 'kysely'
import { historyPage, toDto } from '../../db/repositories/messages.ts'
import { CursorConflictError, InvalidCursorError } from '../../errors.ts'
import { SessionIdParamsSchema } from '../../schemas/session-params.ts'
import { protectedSchema } from '../../schemas/security.ts'
import type { DB } from '../../db/types.ts'
import type { Approvals } from '../../services/approvals.ts'
import type { OracleIdentity } from '../../services/oracle-identity.ts'
import { callersSession } from '../callers-session.ts'

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
    schema: protectedSchema('messages', {
      summary: 'A page of history by turns: newest first page, then `before=prevCursor` for older, ' +
        '`after=nextCursor` for newer; `pendingApprovals` lists the tool calls waiting for the user',
      params: SessionIdParamsSchema,
      querystring: HistoryQuerySchema,
      response: { 200: HistoryPageSchema, 400: Type.Ref('ErrorBody'), 404: Type.Ref('ErrorBody') }
    })
  }, async (request) => {
    const { limit, before, after } = request.query
    if (before !== undefined && after !== undefined) throw new CursorConflictError()
    const session = await callersSession(db, identity.did, request, request.params.id)
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
    schema: protectedSchema('messages', {
      summary: 'The session\'s active durable run: always null (this runtime streams each answer on its request)',
      params: SessionIdParamsSchema,
      response: { 200: RunReplySchema, 404: Type.Ref('ErrorBody') }
    })
  }, async (request) => {
    await callersSession(db, identity.did, request, request.params.id)
    return { run: null }
  })
}
