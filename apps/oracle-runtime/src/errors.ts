import { defineError } from '@impact/service-kit'

/** Coded errors of oracle-runtime: `ORACLE_…` for the runtime, `UCAN_…` for authentication. */
export const UcanMissingError = defineError('UCAN_MISSING',
  'Missing UCAN authentication: send Authorization: Bearer <invocation> together with X-Auth-Type: ucan, ' +
  'or an x-ucan-delegation header', 401)
export const UcanInvalidInvocationError = defineError('UCAN_INVALID_INVOCATION', 'Invalid UCAN invocation', 401)
// The argument is empty, or `: <why>` for a refusal a client may be told about (revoked, lifetime, capability).
export const UcanInvalidDelegationError = defineError('UCAN_INVALID_DELEGATION', 'Invalid UCAN delegation%s', 401)
export const UcanInvocationRequiredError = defineError('UCAN_INVOCATION_REQUIRED',
  'A bare x-ucan-delegation is not accepted as the credential here: ' +
  'send Authorization: Bearer <invocation> together with X-Auth-Type: ucan', 401)
export const SessionNotFoundError = defineError('ORACLE_SESSION_NOT_FOUND', 'Session not found', 404)
export const DelegationInvalidError = defineError('ORACLE_DELEGATION_INVALID', 'Invalid delegation: %s', 400)
export const DelegationForbiddenError = defineError('ORACLE_DELEGATION_FORBIDDEN',
  'Delegation issuer is not the caller', 403)
export const TurnInProgressError = defineError('ORACLE_TURN_IN_PROGRESS',
  'A message is already being answered in this session; abort it or wait', 409)
export const UnknownModelError = defineError('ORACLE_UNKNOWN_MODEL',
  'Unknown model %s; GET /models lists the available ones', 400)
export const InvalidTimezoneError = defineError('ORACLE_INVALID_TIMEZONE',
  'timezone %s is not a known IANA time zone', 400)
export const InvalidCursorError = defineError('ORACLE_INVALID_CURSOR', 'Invalid history cursor', 400)
export const CursorConflictError = defineError('ORACLE_CURSOR_CONFLICT', 'Send either before or after, not both', 400)
export const UpstreamFailedError = defineError('ORACLE_UPSTREAM_FAILED', 'The model provider failed: %s', 502)
export const TurnAbortedError = defineError('ORACLE_TURN_ABORTED',
  'The message was aborted before the answer was complete', 409)
export const ApprovalNotFoundError = defineError('ORACLE_APPROVAL_NOT_FOUND',
  'No approval request with this tool call id in this session', 404)
export const ApprovalClosedError = defineError('ORACLE_APPROVAL_CLOSED',
  'The approval request is no longer open: it was %s', 409)
export const PaymentRequiredError = defineError('ORACLE_PAYMENT_REQUIRED', 'Payment required', 402)
export const RateLimitedError = defineError('ORACLE_RATE_LIMITED', '%s; retry in %s seconds', 429)
export const ClaimNotFoundError = defineError('ORACLE_CLAIM_NOT_FOUND', 'Claim not found', 404)
export const PluginConfigError = defineError('ORACLE_PLUGIN_CONFIG', '%s', 500)
// Refusals of a WebSocket handshake (socket.io CONNECT_ERROR `{ message, data: { code, statusCode } }`,
// plain WebSocket `connect_error` then a 44xx close code).
export const RealtimeSessionRequiredError = defineError('ORACLE_WS_SESSION_REQUIRED',
  'Missing sessionId: connect with the query parameter sessionId=<session id>', 400)
export const RealtimeUcanMissingError = defineError('UCAN_MISSING',
  'Unauthorized: missing UCAN authentication: send auth.invocation (a UCAN invocation) or auth.ucanDelegation', 401)
export const RealtimeUcanInvalidInvocationError = defineError('UCAN_INVALID_INVOCATION',
  'Unauthorized: Invalid UCAN invocation', 401)
export const RealtimeUcanInvalidDelegationError = defineError('UCAN_INVALID_DELEGATION',
  'Unauthorized: Invalid UCAN delegation%s', 401)
export const RealtimeUcanInvocationRequiredError = defineError('UCAN_INVOCATION_REQUIRED',
  'Unauthorized: a bare ucanDelegation is not accepted as the credential here: ' +
  'send auth.invocation (a UCAN invocation)', 401)
// Why an open connection is closed by the server (an `error` event, then the disconnect).
export const RealtimeCredentialExpiredError = defineError('UCAN_EXPIRED',
  'Unauthorized: the UCAN this connection was opened with has expired; reconnect with a fresh one', 401)
export const RealtimeCredentialRevokedError = defineError('UCAN_REVOKED',
  'Unauthorized: the UCAN delegation this connection was opened with has been revoked', 401)
export const RealtimeBusyError = defineError('ORACLE_WS_BUSY', 'Too many connections on this server; retry later', 503)
export const RealtimeClosingError = defineError('ORACLE_WS_CLOSING', 'The server is shutting down; reconnect', 503)
