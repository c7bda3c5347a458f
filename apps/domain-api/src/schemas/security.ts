import { Type } from '@sinclair/typebox'

/** The OpenAPI security schemes of the /v1 routes. */
export const SECURITY_SCHEMES = {
  apiKey: {
    type: 'http' as const,
    scheme: 'bearer',
    bearerFormat: 'API key',
    description: 'Authorization: Bearer <API_KEY>. A key belongs to an account (DID) and acts with the roles it ' +
      'names that its account holds; an unknown or revoked key gets 401, a caller without the role an ' +
      'operation names gets 403.'
  },
  ucan: {
    type: 'http' as const,
    scheme: 'bearer',
    bearerFormat: 'UCAN invocation (base64 CAR)',
    description: 'Authorization: Bearer <base64 CAR> with X-Auth-Type: ucan. A UCAN 0.9 invocation addressed to ' +
      'this registry\'s DID (GET / reports it), with one capability: the operation\'s ability (domain/create, ' +
      'domain/read, domain/update, domain/deactivate, verification/propose, verification/vote) with = the ' +
      'account DID it acts for, proven by a chain rooted at that DID (domain/* in a delegation covers the domain ' +
      'abilities). A malformed, expired or forged token gets 401 DOMAIN_UCAN_INVALID_INVOCATION; a sound one that ' +
      'does not grant the ability gets 403 DOMAIN_UCAN_NOT_GRANTED.'
  }
}
/** Routes that take an API key or a UCAN invocation. */
export const SECURITY: Array<Record<string, string[]>> = [{ apiKey: [] }, { ucan: [] }]
/** Routes that take an API key only (administration). */
export const KEY_SECURITY: Array<Record<string, string[]>> = [{ apiKey: [] }]

/** The header that selects UCAN authentication, declared on the routes that accept it. */
export const AuthHeaderProperties = {
  'x-auth-type': Type.Optional(Type.String({
    maxLength: 32,
    description: '`ucan` when the bearer token is a UCAN invocation (base64 CAR); otherwise it is an API key'
  }))
}
export const AuthHeadersSchema = Type.Object(AuthHeaderProperties)

/** Error responses of a route, all in the platform's error body. */
export function errorResponses (...statuses: number[]) {
  return Object.fromEntries(statuses.map((status) => [status, { $ref: 'ErrorBody#' }]))
}
