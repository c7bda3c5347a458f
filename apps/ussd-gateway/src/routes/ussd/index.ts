import type { FastifyPluginAsyncTypebox } from '@impact/service-kit'
import type { FastifyError, preHandlerAsyncHookHandler } from 'fastify'
import { ussdErrorReply } from '../../errors.ts'
import { normalisePhone, UssdRequestSchema, UssdTextReplySchema } from '../../schemas/ussd.ts'
import { wireText } from '../../services/menu/machine.ts'
import type { UssdEngine } from '../../services/ussd-engine.ts'

const TEXT_PLAIN = 'text/plain; charset=utf-8'
const textReply = (description: string) => ({ description, content: { 'text/plain': { schema: UssdTextReplySchema } } })

export interface UssdRoutesOptions {
  engine: UssdEngine
  /** The per-phone rate limit (plugins/rate-limit.ts). */
  limitPhone: preHandlerAsyncHookHandler
}

/**
 * `POST /api/ussd`, the Africa's Talking contract: JSON or form body, cumulative `text`, and a
 * `CON …`/`END …` text answer. Every failure in this scope is answered in that same text contract,
 * never JSON, because an aggregator drops a session without a message on anything else.
 */
export const ussdRoutes: FastifyPluginAsyncTypebox<UssdRoutesOptions> = async (app, { engine, limitPhone }) => {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const { statusCode, message } = ussdErrorReply(error, request)
    return reply.code(statusCode).type(TEXT_PLAIN).send(`END ${message}`)
  })

  app.post('/', {
    schema: {
      tags: ['ussd'],
      summary: 'One hop of a USSD session (Africa\'s Talking shape)',
      description: 'Called by the aggregator once per user input. Answers `CON <menu>` or `END <message>` as ' +
        'text/plain, 429 with an END text when rate limited. Invalid requests get ' +
        '`END Invalid input. Please try again.`, failures ' +
        '`END Service temporarily unavailable. Please try again later.` (both HTTP 200).',
      consumes: ['application/x-www-form-urlencoded', 'application/json'],
      body: UssdRequestSchema,
      response: { 200: textReply('CON or END screen'), 429: textReply('END text: too many requests') }
    },
    preHandler: limitPhone
  }, async (request, reply) => {
    const { sessionId, serviceCode, phoneNumber, networkCode, text } = request.body
    const hop = { sessionId, serviceCode, phoneNumber: normalisePhone(phoneNumber), networkCode, text }
    const result = await engine.hop(hop)
    request.log.debug({ sessionId, networkCode, end: result.end }, 'ussd hop')
    reply.type(TEXT_PLAIN)
    return wireText(result)
  })
}
