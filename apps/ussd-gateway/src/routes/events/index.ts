import type { FastifyPluginAsyncTypebox } from '@impact/service-kit'
import { normalisePhone, UssdEventReplySchema, UssdEventSchema } from '../../schemas/ussd.ts'
import type { UssdEngine } from '../../services/ussd-engine.ts'

/** `POST /api/ussd/events`: the aggregator's end-of-session notice; `input` and `lastAppResponse` may hold PINs. */
export const eventRoutes: FastifyPluginAsyncTypebox<{ engine: UssdEngine }> = async (app, { engine }) => {
  app.post('/events', {
    schema: {
      tags: ['ussd'],
      summary: 'End-of-session notification from the aggregator',
      consumes: ['application/x-www-form-urlencoded', 'application/json'],
      body: UssdEventSchema,
      response: {
        200: UssdEventReplySchema,
        400: { $ref: 'ErrorBody#' },
        429: { $ref: 'ErrorBody#' },
        503: { $ref: 'ErrorBody#' }
      }
    }
  }, async (request) => {
    const { sessionId, phoneNumber, status, cost, durationInMillis, hopsCount, errorMessage, networkCode } =
      request.body
    // A live session ended here was ended by the user or the network; the record keeps the status and cost.
    const freed = await engine.end(sessionId, normalisePhone(phoneNumber), { reason: 'user', status, cost })
    const notice = { sessionId, status, cost, durationInMillis, hopsCount, networkCode, errorMessage, freed }
    request.log.info(notice, 'ussd session ended by aggregator')
    return { received: true as const }
  })
}
