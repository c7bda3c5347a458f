import { Type } from '@sinclair/typebox'

/** OpenAPI security of protected routes: an invocation (primary) or a bare delegation (fallback). */
export const SECURITY: Array<Record<string, string[]>> = [
  { ucanInvocation: [], ucanAuthType: [] },
  { ucanDelegation: [] }
]

export const AUTH_ERRORS = { 401: Type.Ref('ErrorBody') }

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
    description: 'CREDITS_ADMIN_TOKEN (credits operator routes)'
  }
}
