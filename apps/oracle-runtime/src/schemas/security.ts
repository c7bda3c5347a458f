import { Type } from '@sinclair/typebox'

/** OpenAPI security of protected routes: an invocation (primary) or a bare delegation (fallback). */
export const SECURITY: Array<Record<string, string[]>> = [
  { ucanInvocation: [], ucanAuthType: [] },
  { ucanDelegation: [] }
]

export const AUTH_ERRORS = { 401: Type.Ref('ErrorBody') }

/**
 * The schema of a route behind UCAN auth: its tag, the security above and the 401 every such route
 * may answer, so the route itself states only what is its own.
 */
export function protectedSchema<S extends { summary: string, response: object }> (tag: string, schema: S) {
  return { tags: [tag], security: SECURITY, ...schema, response: { ...schema.response, ...AUTH_ERRORS } }
}

export const SECURITY_SCHEMES = {
  ucanInvocation: {
    type: 'http' as const,
    scheme: 'bearer',
    bearerFormat: 'UCAN invocation (base64 CAR)',
    description: 'User-signed invocation addressed to this oracle; needs X-Auth-Type: ucan'
  },
  ucanAuthType: {
    type: 'apiKey' as const,
    in: 'header' as const,
    name: 'X-Auth-Type',
    description: 'Must be `ucan` for the bearer to be read'
  },
  ucanDelegation: {
    type: 'apiKey' as const,
    in: 'header' as const,
    name: 'x-ucan-delegation',
    description: 'User → oracle delegation (base64 CAR), accepted alone as fallback'
  },
  operatorToken: {
    type: 'http' as const,
    scheme: 'bearer',
    description: 'CREDITS_ADMIN_TOKEN (credits operator routes), ORACLE_OPERATOR_TOKEN (GET /audit)'
  }
}
