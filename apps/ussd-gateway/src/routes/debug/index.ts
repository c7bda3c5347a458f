import { Type } from '@sinclair/typebox'
import { staticBearerGuard, type FastifyPluginAsyncTypebox } from '@impact/service-kit'
import type { Config } from '../../config.ts'
import { UssdSessionNotFoundError } from '../../errors.ts'
import { DebugRecordSchema, SessionIdSchema, SessionListSchema } from '../../schemas/ussd.ts'
import type { SessionStore } from '../../services/session-store.ts'

/** At most this many ids are listed (the shared store is scanned, not indexed). */
export const MAX_LISTED_SESSIONS = 10_000

/**
 * Shown for the last screen of a logged-in session: its screens carry the account (the name on
 * the welcome menu, the customer id, the details screen), which operators have no need to read.
 */
export const WITHHELD = '(withheld: a logged-in screen)'

/** Operator routes are on with OPERATOR_TOKEN (bearer), or open in development only. */
export const operatorRoutesEnabled = (config: Config) =>
  config.OPERATOR_TOKEN !== undefined || config.NODE_ENV === 'development'

export interface DebugRoutesOptions {
  config: Config
  sessions: SessionStore
}

/**
 * `GET /api/ussd/debug/:sessionId` and `GET /api/ussd/sessions`: the spec's debug record and session list,
 * with the state name and last screen only (withheld once logged in), never a PIN, draft or account data.
 */
export const debugRoutes: FastifyPluginAsyncTypebox<DebugRoutesOptions> = async (app, { config, sessions }) => {
  if (!operatorRoutesEnabled(config)) return
  const guard = config.OPERATOR_TOKEN === undefined ? [] : [staticBearerGuard([config.OPERATOR_TOKEN])]
  const security = config.OPERATOR_TOKEN === undefined ? [] : [{ operatorToken: [] }]
  const errors = { 401: { $ref: 'ErrorBody#' }, 429: { $ref: 'ErrorBody#' }, 503: { $ref: 'ErrorBody#' } }

  app.get('/debug/:sessionId', {
    schema: {
      tags: ['operator'],
      summary: 'Debug record of a live session',
      security,
      params: Type.Object({ sessionId: SessionIdSchema }),
      response: { 200: DebugRecordSchema, 404: { $ref: 'ErrorBody#' }, ...errors }
    },
    preHandler: guard
  }, async (request) => {
    const { sessionId } = request.params
    const session = await sessions.get(sessionId)
    if (session === undefined) throw new UssdSessionNotFoundError(sessionId)
    const isAuthenticated = session.customerId !== undefined
    const message = isAuthenticated ? WITHHELD : session.message
    return {
      sessionId,
      debugInfo: {
        state: session.state,
        context: { sessionId, phoneNumber: session.phone, message, isAuthenticated },
        status: 'active' as const
      },
      activeSessions: await sessions.list(MAX_LISTED_SESSIONS)
    }
  })

  app.get('/sessions', {
    schema: {
      tags: ['operator'],
      summary: 'Ids of the live sessions',
      security,
      response: { 200: SessionListSchema, ...errors }
    },
    preHandler: guard
  }, async () => {
    const activeSessions = await sessions.list(MAX_LISTED_SESSIONS)
    return { activeSessions, count: activeSessions.length }
  })
}
