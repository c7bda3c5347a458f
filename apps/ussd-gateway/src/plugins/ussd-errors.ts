import type { FastifyError, FastifyRequest } from 'fastify'
import { INVALID_INPUT_MESSAGE, RATE_LIMITED_MESSAGE, UNAVAILABLE_MESSAGE } from '../errors.ts'

export interface UssdErrorReply {
  /** 200 for everything but rate limits: an aggregator ends the session on other statuses without showing a text. */
  statusCode: 200 | 429
  message: string
}

/**
 * Maps any error on an aggregator route to the closing message the user sees: bad requests
 * (validation, unparsable or oversized bodies, a session of another phone) get the invalid-input
 * text, rate limits 429, and everything else, logged with its stack, the unavailable text.
 */
export function ussdErrorReply (error: FastifyError, request: FastifyRequest): UssdErrorReply {
  const status = error.statusCode ?? 500
  if (status === 429) return { statusCode: 429, message: RATE_LIMITED_MESSAGE }
  if (error.validation !== undefined || (status >= 400 && status < 500)) {
    request.log.info({ code: error.code, statusCode: status }, 'ussd request refused')
    return { statusCode: 200, message: INVALID_INPUT_MESSAGE }
  }
  request.log.error({ err: error }, 'ussd request failed')
  return { statusCode: 200, message: UNAVAILABLE_MESSAGE }
}
