import type { FastifyError, FastifyRequest } from 'fastify'
import { defineError } from '@impact/service-kit'

/** Coded errors of ussd-gateway; every code starts with `USSD_`. */
export const UssdSessionNotFoundError = defineError(
  'USSD_SESSION_NOT_FOUND',
  'Session %s not found: it expired after inactivity, ended, or never started',
  404
)

/** Another request of the same session held its lock for too long (answered with the unavailable END text). */
export const UssdSessionBusyError = defineError('USSD_SESSION_BUSY', 'The session is busy with another request', 503)

/** A hop past its deadline: the unavailable END reaches the user before the aggregator's own timeout drops it. */
export const UssdHopDeadlineError = defineError('USSD_HOP_DEADLINE', 'The hop did not finish within %s ms', 503)

/** A PIN record no configured key opens: the server's fault, so no attempt is counted and nobody is locked out. */
export const UssdPinRecordError = defineError(
  'USSD_PIN_RECORD_UNREADABLE',
  'A stored PIN record cannot be opened with the configured keys',
  500
)

/** The PIN hashing queue is full: the menus answer the busy END text, other routes 503. */
export const UssdPinBusyError = defineError('USSD_PIN_BUSY', 'Too many PIN checks at once, try again in a moment', 503)

/**
 * An account's signing key cannot be used: the account has none yet (created before identities, not
 * logged in since) or no configured key opens its record (a key retired without PIN_ENCRYPTION_PREVIOUS_KEYS).
 */
export const UssdAccountKeyError = defineError(
  'USSD_ACCOUNT_KEY_UNREADABLE',
  'The signing key of account %s cannot be opened with the configured keys',
  500
)

/** An operator named a customer id that has no account. */
export const UssdAccountNotFoundError = defineError('USSD_ACCOUNT_NOT_FOUND', 'Account %s not found', 404)

/** No record of an ended session by that id (live, never started, or purged). */
export const UssdSessionRecordNotFoundError = defineError(
  'USSD_SESSION_RECORD_NOT_FOUND',
  'No record of session %s: it is still live, never started, or its record was purged',
  404
)

/** A report asked for a day that does not exist (the pattern lets 2026-02-30 through). */
export const UssdReportDateError = defineError('USSD_REPORT_DATE_INVALID', 'No such day: %s', 400)

/** A request named a live session of another phone number (answered with the invalid-input END text). */
export const UssdPhoneMismatchError = defineError(
  'USSD_PHONE_MISMATCH',
  'The session belongs to another phone number',
  400
)

/** The fixed closing messages of the USSD contract (service spec, "Errors"), sent after `END `. */
export const INVALID_INPUT_MESSAGE = 'Invalid input. Please try again.'
export const UNAVAILABLE_MESSAGE = 'Service temporarily unavailable. Please try again later.'
export const RATE_LIMITED_MESSAGE = 'Too many requests. Please wait a minute and try again.'

/** Over the per-IP or per-phone limit: HTTP 429 with the rate-limited END text. */
export const UssdRateLimitedError = defineError('USSD_RATE_LIMITED', 'Rate limit exceeded, retry in %s', 429)

export interface UssdErrorReply {
  /** 200 for everything but rate limits: an aggregator ends the session on other statuses without showing a text. */
  statusCode: 200 | 429
  message: string
}

/** The closing message for an error on an aggregator route: invalid input, rate limited, or unavailable (logged). */
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
