// A backing service that cannot be reached is a 503 rather than a 500, so callers retry instead of reporting a bug.

const NETWORK_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH',
  'ENETUNREACH'
])

/** Connection, retries exhausted, too many connections, statement timeout, server shutting down or starting. */
const UNAVAILABLE_SQLSTATE = /^(08[0-9A-Z]{3}|40001|40P01|53300|57014|57P0[1-3])$/

/** The persistence library's own timeout. */
const OWN_CODES = new Set(['PERSIST_TIMEOUT'])

// Uncoded ioredis and pg failures: a command given up or timed out, a lost connection, a closed pool.
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

export function isUnavailableError (error: unknown): boolean {
  let current: unknown = error
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    if (isUnavailableItself(current)) return true
    current = (current as { cause?: unknown }).cause
  }
  return false
}
