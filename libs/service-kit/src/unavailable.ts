/**
 * Errors that say a backing service (PostgreSQL, Redis, another service) cannot be reached right now:
 * answered 503 with a public code instead of a bare 500, so callers retry rather than report a bug.
 */

/** Socket-level failures, from Node's net/dns layers (pg and ioredis pass them through). */
const NETWORK_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH',
  'ENETUNREACH'
])

/**
 * PostgreSQL SQLSTATEs: class 08 (connection exception), 40001/40P01 (a serialization failure or
 * deadlock that outlasted the persistence layer's retries), 53300 too_many_connections, 57014
 * query_canceled (the statement timeout), 57P01–57P03 (the server is shutting down or starting).
 */
const UNAVAILABLE_SQLSTATE = /^(08[0-9A-Z]{3}|40001|40P01|53300|57014|57P0[1-3])$/

/** Codes of our own layers: the persistence library's ping/statement timeout. */
const OWN_CODES = new Set(['PERSIST_TIMEOUT'])

/**
 * Errors that carry no code: ioredis gave up on a command, timed it out or lost its connection; pg lost its
 * connection, could not get one in time, or its pool was closed (the process is shutting down).
 */
const UNAVAILABLE_NAMES = new Set(['MaxRetriesPerRequestError'])
const UNAVAILABLE_MESSAGES = new RegExp('^(' + [
  'Command timed out$',
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Connection is closed\\.',
  'Client has encountered a connection error and is not queryable',
  'Cannot use a pool after calling end on the pool'
].join('|') + ')')

function isUnavailableItself (error: object): boolean {
  const { code, name, message } = error as { code?: unknown, name?: unknown, message?: unknown }
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || OWN_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code)) return true
  }
  if (typeof name === 'string' && UNAVAILABLE_NAMES.has(name)) return true
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)
}

/** True when the error, or one of its causes, is a backing service being unavailable. */
export function isUnavailableError (error: unknown): boolean {
  let current: unknown = error
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    if (isUnavailableItself(current)) return true
    current = (current as { cause?: unknown }).cause
  }
  return false
}
