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

/** `X-Request-Id` and `nosniff` on every response: set on arrival, as such headers survive the error handler. */
export function commonHeaders (app: FastifyInstance) {
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers({ 'x-request-id': request.id, 'x-content-type-options': 'nosniff' })
    done()
  })
}
