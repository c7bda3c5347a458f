import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { defineError } from './errors.ts'

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest()

/** Constant-time comparison; both sides are hashed first, so not even the expected length leaks. */
export function safeEqual (actual: string, expected: string): boolean {
  return timingSafeEqual(digest(actual), digest(expected))
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function readBearerToken (header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header
  const match = value?.match(/^Bearer\s+(\S+)\s*$/i)
  return match?.[1]
}

export const AuthMissingError = defineError(
  'AUTH_MISSING',
  'Missing credentials: send Authorization: Bearer <token>',
  401
)
export const AuthInvalidError = defineError('AUTH_INVALID', 'Invalid credentials', 401)

/** A preHandler admitting one of `tokens` as bearer; every one is compared, so timing reveals no match. */
export function staticBearerGuard (tokens: readonly string[]) {
  return async function requireBearer (request: FastifyRequest, reply: FastifyReply) {
    const token = readBearerToken(request.headers.authorization)
    if (token === undefined) {
      reply.header('www-authenticate', 'Bearer')
      throw new AuthMissingError()
    }
    let matched = false
    for (const expected of tokens) matched = safeEqual(token, expected) || matched
    if (!matched) {
      reply.header('www-authenticate', 'Bearer error="invalid_token"')
      throw new AuthInvalidError()
    }
  }
}
