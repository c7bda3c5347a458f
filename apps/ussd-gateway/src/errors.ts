import type { FastifyError, FastifyRequest } from 'fastify'
import { defineError } from '@impact/service-kit'

export const UssdSessionNotFoundError = defineError(
  'USSD_SESSION_NOT_FOUND',
  'Session %s not found: it expired after inactivity, ended, or never started',
  404
)

export const UssdSessionBusyError = defineError('USSD_SESSION_BUSY', 'The session is busy with another request', 503)

/** Answers before the aggregator's own timeout drops the session. */
export const UssdHopDeadlineError = defineError('USSD_HOP_DEADLINE', 'The hop did not finish within %s ms', 503)

/** The server's fault, so no attempt is counted. */
export const UssdPinRecordError = defineError(
  'USSD_PIN_RECORD_UNREADABLE',
  'A stored PIN record cannot be opened with the configured keys',
  500
)

export const UssdPinBusyError = defineError('USSD_PIN_BUSY', 'Too many PIN checks at once, try again in a moment', 503)

export const UssdAccountKeyError = defineError(
  'USSD_ACCOUNT_KEY_UNREADABLE',
  'The signing key of account %s cannot be opened with the configured keys',
  500
)

export const UssdAccountNotFoundError = defineError('USSD_ACCOUNT_NOT_FOUND', 'Account %s not found', 404)

export const UssdSessionRecordNotFoundError = defineError(
  'USSD_SESSION_RECORD_NOT_FOUND',
  'No record of session %s: it is still live, never started, or its record was purged',
  404
)

/** The date pattern lets 2026-02-30 through. */
export const UssdReportDateError = defineError('USSD_REPORT_DATE_INVALID', 'No such day: %s', 400)

export const UssdPhoneMismatchError = defineError(
  'USSD_PHONE_MISMATCH',
  'The session belongs to another phone number',
  400
)

/** Fixed by the USSD contract (service spec, "Errors"). */
export const INVALID_INPUT_MESSAGE = 'Invalid input. Please try again.'
export const UNAVAILABLE_MESSAGE = 'Service temporarily unavailable. Please try again later.'
export const RATE_LIMITED_MESSAGE = 'Too many requests. Please wait a minute and try again.'

export const UssdRateLimitedError = defineError('USSD_RATE_LIMITED', 'Rate limit exceeded, retry in %s', 429)

export interface UssdErrorReply {
  /** An aggregator ends the session without a text on any other non-200 status. */
  statusCode: 200 | 429
  message: string
}

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
