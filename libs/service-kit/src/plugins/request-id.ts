import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { FastifyInstance } from 'fastify'

/** A caller's id is reused only when it is short and plain, so it cannot inject into logs or headers. */
const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

export function genReqId (req: IncomingMessage): string {
  const header = req.headers['x-request-id']
  const value = Array.isArray(header) ? header[0] : header
  return value !== undefined && VALID_REQUEST_ID.test(value) ? value : randomUUID()
}

/**
 * Headers every response carries, errors and 404s included: the request id, and `nosniff` so no
 * browser guesses a script out of a text or JSON body. Set once when the request arrives (headers
 * set then survive the error handler), in a callback hook: no promise per request.
 */
export function commonHeaders (app: FastifyInstance) {
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers({ 'x-request-id': request.id, 'x-content-type-options': 'nosniff' })
    done()
  })
}
