import { Type } from '@sinclair/typebox'
import { staticBearerGuard, type FastifyPluginAsyncTypebox } from '@impact/service-kit'
import type { Kysely } from 'kysely'
import type { Config } from '../../config.ts'
import { dropOffByState, findSessionRecords } from '../../db/session-records.repository.ts'
import type { DB } from '../../db/types.ts'
import { UssdReportDateError, UssdSessionRecordNotFoundError } from '../../errors.ts'
import { DropOffQuerySchema, DropOffReportSchema, SessionIdSchema, SessionRecordsSchema } from '../../schemas/ussd.ts'
import { operatorRoutesEnabled } from '../debug/index.ts'

const DAY_MS = 24 * 60 * 60 * 1000

export interface ReportRoutesOptions {
  config: Config
  db: Kysely<DB>
}

/**
 * `GET /api/ussd/reports/drop-off?date=YYYY-MM-DD`: per screen, how many sessions ended there that day and
 * how (END, user, timeout), from the session records; `GET /api/ussd/reports/sessions/:sessionId`: one
 * ended session's record. Same auth as the other operator routes.
 */
export const reportRoutes: FastifyPluginAsyncTypebox<ReportRoutesOptions> = async (app, { config, db }) => {
  if (!operatorRoutesEnabled(config)) return
  const guard = config.OPERATOR_TOKEN === undefined ? [] : [staticBearerGuard([config.OPERATOR_TOKEN])]
  const security = config.OPERATOR_TOKEN === undefined ? [] : [{ operatorToken: [] }]
  const errors = { 401: { $ref: 'ErrorBody#' }, 429: { $ref: 'ErrorBody#' }, 503: { $ref: 'ErrorBody#' } }

  app.get('/reports/drop-off', {
    schema: {
      tags: ['operator'],
      summary: 'Where sessions ended on a day',
      description: 'For the sessions that ended on `date` (UTC), how many ended on each screen (state), and how: ' +
        'by the gateway\'s END, by the user or network (the aggregator\'s notice), or by timeout. Records are kept ' +
        'USSD_SESSION_RECORD_RETENTION_DAYS days; a timeout is recorded within a minute of the session expiring.',
      security,
      querystring: DropOffQuerySchema,
      response: { 200: DropOffReportSchema, 400: { $ref: 'ErrorBody#' }, ...errors }
    },
    preHandler: guard
  }, async (request) => {
    const { date, serviceCode } = request.query
    const from = new Date(`${date}T00:00:00.000Z`)
    // Date rolls 2026-02-30 over into March: only a day that exists reads back as itself.
    if (Number.isNaN(from.getTime()) || from.toISOString().slice(0, 10) !== date) throw new UssdReportDateError(date)
    const screens = await dropOffByState(db, { from, to: new Date(from.getTime() + DAY_MS), serviceCode })
    const sum = (pick: (row: typeof screens[number]) => number) => screens.reduce((total, row) => total + pick(row), 0)
    return {
      date,
      serviceCode: serviceCode ?? null,
      sessions: sum((row) => row.sessions),
      end: sum((row) => row.end),
      user: sum((row) => row.user),
      timeout: sum((row) => row.timeout),
      screens
    }
  })

  app.get('/reports/sessions/:sessionId', {
    schema: {
      tags: ['operator'],
      summary: 'The record of an ended session',
      description: 'Where an ended session was and how it ended, with the aggregator\'s status and cost once its ' +
        'notification arrived; never what was typed or shown. 404 while it is live (see /debug) or unrecorded.',
      security,
      params: Type.Object({ sessionId: SessionIdSchema }),
      response: { 200: SessionRecordsSchema, 404: { $ref: 'ErrorBody#' }, ...errors }
    },
    preHandler: guard
  }, async (request) => {
    const { sessionId } = request.params
    const records = await findSessionRecords(db, sessionId)
    if (records.length === 0) throw new UssdSessionRecordNotFoundError(sessionId)
    return {
      sessionId,
      records: records.map(({ sessionId: _id, startedAt, endedAt, ...record }) => ({
        ...record,
        startedAt: startedAt.toISOString(),
        endedAt: endedAt.toISOString()
      }))
    }
  })
}
