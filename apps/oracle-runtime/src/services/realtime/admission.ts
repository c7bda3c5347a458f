import type { FastifyBaseLogger } from 'fastify'
import type { Kysely } from 'kysely'
import { findSession } from '../../db/repositories/sessions.ts'
import type { DB } from '../../db/types.ts'
import {
  RealtimeBusyError, RealtimeClosingError, RealtimeSessionRequiredError, RealtimeUcanInvalidDelegationError,
  RealtimeUcanInvalidInvocationError, RealtimeUcanInvocationRequiredError, RealtimeUcanMissingError,
  SessionNotFoundError
} from '../../errors.ts'
import { authenticate, credential, type AuthContext, type AuthenticateOptions } from '../authenticate.ts'

/** What a handshake presents, untrusted and unparsed (query values, the socket.io `auth` object, a first message). */
export interface HandshakeRequest { sessionId: unknown, invocation: unknown, delegation: unknown }

/**
 * An admitted handshake. The tokens themselves are not kept, only when the credential expires and
 * its CIDs: the connection is closed at expiry, or when one of them is revoked.
 */
export interface Admitted {
  did: string
  sessionId: string
  via: AuthContext['via']
  expiration: number
  cids: string[]
}
/** Why a handshake was refused, in the error contract's terms (code and status travel to the client). */
export interface Refusal { message: string, code: string, statusCode: number }
export type Admission = { ok: Admitted, refusal?: undefined } | { ok?: undefined, refusal: Refusal }

export interface AdmissionDeps extends AuthenticateOptions {
  db: Kysely<DB>
  oracleDid: string
  maxConnections: number
  log: FastifyBaseLogger
}

type Refusing = new (...args: string[]) => Error & { code: string, statusCode?: number }
const refuse = (ErrorClass: Refusing, ...args: string[]): Admission => {
  const error = new ErrorClass(...args)
  return { refusal: { message: error.message, code: error.code, statusCode: error.statusCode ?? 400 } }
}
const AUTH_REFUSALS = {
  missing: RealtimeUcanMissingError,
  invalid_invocation: RealtimeUcanInvalidInvocationError,
  invocation_required: RealtimeUcanInvocationRequiredError
}
const MAX_SESSION_ID_LENGTH = 200

/**
 * Decides whether a WebSocket handshake may join a session: a `sessionId`, a UCAN validated by
 * the same rule as HTTP (`authenticate`), and a session that belongs to the authenticated DID
 * (another user's session is as unknown as a missing one). The DID comes from the UCAN only.
 */
export async function admit (
  deps: AdmissionDeps,
  state: { closing: boolean, connections: number },
  request: HandshakeRequest
): Promise<Admission> {
  if (state.closing) return refuse(RealtimeClosingError)
  if (state.connections >= deps.maxConnections) return refuse(RealtimeBusyError)
  const sessionId = credential(request.sessionId)
  if (sessionId === undefined || sessionId.length > MAX_SESSION_ID_LENGTH) return refuse(RealtimeSessionRequiredError)

  const credentials = { invocation: credential(request.invocation), delegation: credential(request.delegation) }
  const outcome = await authenticate(deps, credentials, deps.log)
  if (outcome.failure === 'invalid_delegation') {
    return refuse(RealtimeUcanInvalidDelegationError, outcome.detail === undefined ? '' : `: ${outcome.detail}`)
  }
  if (outcome.failure !== undefined) return refuse(AUTH_REFUSALS[outcome.failure])
  const session = await findSession(deps.db, outcome.ok.did, sessionId, deps.oracleDid)
  if (session === undefined) return refuse(SessionNotFoundError)
  const { did, via, expiration, cids } = outcome.ok
  return { ok: { did, sessionId, via, expiration, cids } }
}
