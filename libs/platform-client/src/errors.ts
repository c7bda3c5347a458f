/** The services this client talks to, named as errors report them. */
export type PlatformService = 'domain-api' | 'chain-rest-gateway'

/** Why the actor's delegation does not allow a call (`AUTHORISATION_REQUIRED`). */
export type AuthorisationReason = 'no_delegation' | 'invalid' | 'not_granted' | 'expired' | 'wrong_audience'

/**
 * Codes raised by the client itself; every other code is the service's own (`DOMAIN_NOT_FOUND`,
 * `DOMAIN_UCAN_REVOKED`…, or `CHAIN_<gRPC code name>` for the chain gateway).
 */
export type ClientErrorCode =
  /** The actor's delegation does not cover the ability: the user must authorise (again). Nothing was sent. */
  | 'AUTHORISATION_REQUIRED'
  /** No URL configured for the service, or no actor for a call that acts as someone. */
  | 'PLATFORM_NOT_CONFIGURED'
  /** The service could not be reached (connection refused, reset, DNS). */
  | 'PLATFORM_UNAVAILABLE'
  /** No answer within the timeout. */
  | 'PLATFORM_TIMEOUT'
  /** A chain route that is not a plain absolute path under the gateway. */
  | 'PLATFORM_INVALID_ROUTE'
  /** An answer that is not what the service promises (not JSON, no DID on `GET /`, an unknown error shape). */
  | 'PLATFORM_BAD_RESPONSE'

/** Codes after which re-authorising helps: the delegation is missing, short, expired or revoked. */
const AUTHORISATION_CODES = new Set(['AUTHORISATION_REQUIRED', 'DOMAIN_UCAN_NOT_GRANTED', 'DOMAIN_UCAN_REVOKED'])

export interface PlatformClientErrorOptions {
  service?: PlatformService | undefined
  /** The ability the call needed (UCAN calls). */
  ability?: string | undefined
  /** Why authorisation is required (`AUTHORISATION_REQUIRED` only). */
  reason?: AuthorisationReason | undefined
  /** Field errors of a 400 (`[{ field, message }]`), or the chain's google.rpc.Status details. */
  details?: unknown
  cause?: unknown
}

/**
 * A failed call: `code` is stable and machine-readable, `statusCode` the HTTP status (the service's,
 * or the closest one for the client's own codes: 403 authorisation, 503 unreachable, 504 timeout).
 */
export class PlatformClientError extends Error {
  readonly code: string
  readonly statusCode: number
  readonly service: PlatformService | undefined
  readonly ability: string | undefined
  readonly reason: AuthorisationReason | undefined
  readonly details: unknown

  constructor (code: string, message: string, statusCode: number, options: PlatformClientErrorOptions = {}) {
    super(message, options.cause !== undefined ? { cause: options.cause } : undefined)
    this.name = 'PlatformClientError'
    this.code = code
    this.statusCode = statusCode
    this.service = options.service
    this.ability = options.ability
    this.reason = options.reason
    this.details = options.details
  }

  /** Whether the user has to authorise the actor (again) for this call to succeed. */
  get authorisationRequired (): boolean {
    return AUTHORISATION_CODES.has(this.code)
  }
}

export const isPlatformClientError = (error: unknown): error is PlatformClientError =>
  error instanceof PlatformClientError
