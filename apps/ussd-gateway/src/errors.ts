import { defineError } from '@impact/service-kit'

/** Coded errors of ussd-gateway; every code starts with `USSD_`. */
export const UssdSessionNotFoundError = defineError(
  'USSD_SESSION_NOT_FOUND',
  'Session %s not found: it expired after inactivity, ended, or never started',
  404
)

/** Another request of the same session held its lock for too long (answered with the unavailable END text). */
export const UssdSessionBusyError = defineError('USSD_SESSION_BUSY', 'The session is busy with another request', 503)

/**
 * A hop still waiting on I/O (a stalled database, a lock held by a hop that hangs) at the hop
 * deadline: the aggregator gets the unavailable END in time, instead of dropping the session
 * without a message at its own timeout. The hop itself runs on and releases what it holds.
 */
export const UssdHopDeadlineError = defineError('USSD_HOP_DEADLINE', 'The hop did not finish within %s ms', 503)

/**
 * A stored PIN record that no configured key opens (a key retired without PIN_ENCRYPTION_PREVIOUS_KEYS,
 * a changed key id, a damaged row). The server's fault, not the user's: the hop ends with the
 * unavailable text and no failed attempt is counted, so a rotation mistake locks nobody out.
 */
export const UssdPinRecordError = defineError(
  'USSD_PIN_RECORD_UNREADABLE',
  'A stored PIN record cannot be opened with the configured keys',
  500
)

/**
 * Every PIN hashing slot is taken and the queue behind them is full (PIN_CHECK_CONCURRENCY,
 * PIN_CHECK_QUEUE_MAX): the menus answer the busy END text, other routes 503.
 */
export const UssdPinBusyError = defineError('USSD_PIN_BUSY', 'Too many PIN checks at once, try again in a moment', 503)

/** An operator named a customer id that has no account. */
export const UssdAccountNotFoundError = defineError('USSD_ACCOUNT_NOT_FOUND', 'Account %s not found', 404)

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
