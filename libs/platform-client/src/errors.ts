export type PlatformService = 'domain-api' | 'chain-rest-gateway'

export type AuthorisationReason = 'no_delegation' | 'invalid' | 'not_granted' | 'expired' | 'wrong_audience'

/** Codes raised by the client itself; any other code is the service's own. */
export type ClientErrorCode =
  /** Nothing was sent: the user must authorise (again). */
  | 'AUTHORISATION_REQUIRED'
  | 'PLATFORM_NOT_CONFIGURED'
  | 'PLATFORM_UNAVAILABLE'
  | 'PLATFORM_TIMEOUT'
  | 'PLATFORM_INVALID_ROUTE'
  | 'PLATFORM_BAD_RESPONSE'

const AUTHORISATION_CODES = new Set(['AUTHORISATION_REQUIRED', 'DOMAIN_UCAN_NOT_GRANTED', 'DOMAIN_UCAN_REVOKED'])

export interface PlatformClientErrorOptions {
  service?: PlatformService | undefined
  ability?: string | undefined
  reason?: AuthorisationReason | undefined
  /** Field errors of a 400 (`[{ field, message }]`), or the chain's google.rpc.Status details. */
  details?: unknown
  cause?: unknown
}

/** `statusCode` is the service's, or the closest HTTP status for the client's own codes. */
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

  get authorisationRequired (): boolean {
    return AUTHORISATION_CODES.has(this.code)
  }
}

export const isPlatformClientError = (error: unknown): error is PlatformClientError =>
  error instanceof PlatformClientError
