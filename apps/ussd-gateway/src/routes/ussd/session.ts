import type { FastifyPluginAsyncTypebox } from '@impact/service-kit'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import type { PhoneLimit } from '../../plugins/rate-limit.ts'
import { ussdErrorReply } from '../../plugins/ussd-errors.ts'
import { normalisePhone, UssdRequestSchema, UssdTextReplySchema, type UssdRequest } from '../../schemas/ussd.ts'
import { pending, ready, type Maybe } from '../../services/maybe.ts'
import { wireText, type Reply } from '../../services/menu/machine.ts'
import type { UssdEngine } from '../../services/ussd-engine.ts'

const TEXT_PLAIN = 'text/plain; charset=utf-8'
const textReply = (description: string) => ({ description, content: { 'text/plain': { schema: UssdTextReplySchema } } })

/**
 * `POST /api/ussd`, the Africa's Talking contract: JSON or form body, cumulative `text`, and a
 * `CON …`/`END …` text answer. Every failure in this scope is answered in that same text contract,
 * never JSON, because an aggregator drops a session without a message on anything else.
 */
export const sessionRoutes: FastifyPluginAsyncTypebox<{ engine: UssdEngine, phoneLimit: PhoneLimit }> = async (app, { engine, phoneLimit }) => {
  const limitPhone = phoneLimit((request: FastifyRequest) => normalisePhone((request.body as UssdRequest).phoneNumber))
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const { statusCode, message } = ussdErrorReply(error, request)
    return reply.code(statusCode).type(TEXT_PLAIN).send(`END ${message}`)
  })

  app.post('/', {
    schema: {
      tags: ['ussd'],
      summary: 'One hop of a USSD session (Africa\'s Talking shape)',
      description: 'Called by the aggregator once per user input. Answers `CON <menu>` or `END <message>` as text/plain, 429 with an END text when rate limited. Invalid requests get `END Invalid input. Please try again.`, failures `END Service temporarily unavailable. Please try again later.` (both HTTP 200).',
      consumes: ['application/x-www-form-urlencoded', 'application/json'],
      body: UssdRequestSchema,
      response: { 200: textReply('CON or END screen'), 429: textReply('END text: too many requests') }
    },
  }, (request, reply) => {
    // No promise unless something waits on I/O (Redis, a database guard): see services/maybe.ts.
    const limited = limitPhone(request, reply)
    return pending(limited) ? limited.then(() => answer(request, reply)) : answer(request, reply)
  })

  /** Runs the hop and sends its screen. */
  function answer (request: FastifyRequest<{ Body: UssdRequest }>, reply: FastifyReply): Maybe<void> {
    const { sessionId, serviceCode, phoneNumber, networkCode, text } = request.body
    const result = engine.hop({ sessionId, serviceCode, phoneNumber: normalisePhone(phoneNumber), networkCode, text })
    if (!ready(result)) return result.then((resolved) => { send(request, reply, resolved) })
    send(request, reply, result)
  }
}

function send (request: FastifyRequest<{ Body: UssdRequest }>, reply: FastifyReply, result: Reply): void {
  request.log.debug({ sessionId: request.body.sessionId, networkCode: request.body.networkCode, end: result.end }, 'ussd hop')
  reply.type(TEXT_PLAIN).send(wireText(result))
}
