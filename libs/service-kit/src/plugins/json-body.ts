import type { FastifyInstance } from 'fastify'

/**
 * Browser SDKs send `Content-Type: application/json` on body-less POSTs and DELETEs too, which Fastify's
 * parser refuses: here an empty body means no body. Malformed JSON and `__proto__` keys are still refused.
 */
export function acceptEmptyJsonBodies (app: FastifyInstance) {
  const parse = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8')
    if (text.trim() === '') {
      done(null, undefined)
      return
    }
    parse(request, text, done)
  })
}
