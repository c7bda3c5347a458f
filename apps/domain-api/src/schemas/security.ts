/** The OpenAPI security scheme every /v1 route declares. */
export const SECURITY_SCHEMES = {
  apiKey: {
    type: 'http' as const,
    scheme: 'bearer',
    bearerFormat: 'API key',
    description: 'Authorization: Bearer <API_KEY>. Keys carry roles (registrar, compliance, voter, admin); ' +
      'an unknown or revoked key gets 401, a key without the role an operation names gets 403.'
  }
}
export const SECURITY = [{ apiKey: [] }]

/** Error responses of a route, all in the platform's error body. */
export function errorResponses (...statuses: number[]) {
  return Object.fromEntries(statuses.map((status) => [status, { $ref: 'ErrorBody#' }]))
}
