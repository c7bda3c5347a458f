import { STATUS_CODES } from 'node:http'
import createError from '@fastify/error'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ErrorBody } from '@impact/schemas'
import { isUnavailableError } from './unavailable.ts'

const PUBLIC_CODE = Symbol('publicCode')

/**
 * Defines a coded, prefixed error class (`DOMAIN_NOT_FOUND`, `USSD_…`) whose code is part of the
 * public contract. `%s` placeholders in the message are filled from the constructor arguments.
 */
export function defineError (code: string, message: string, statusCode: number) {
  const ErrorClass = createError(code, message, statusCode)
  Object.defineProperty(ErrorClass.prototype, PUBLIC_CODE, { value: true })
  return ErrorClass
}

const reason = (statusCode: number) => STATUS_CODES[statusCode] ?? 'Error'

interface ValidationIssue { instancePath?: string, message?: string, params?: Record<string, unknown> }

function validationDetails (issues: ValidationIssue[], context?: string) {
  return issues.map((issue) => {
    const missing = issue.params?.missingProperty
    const extra = issue.params?.additionalProperty
    const path = `${context ?? ''}${issue.instancePath ?? ''}`
    const field = typeof missing === 'string'
      ? `${path}/${missing}`
      : typeof extra === 'string' ? `${path}/${extra}` : path
    const message = typeof extra === 'string' ? 'is not an allowed property' : issue.message ?? 'is invalid'
    return { field, message }
  })
}

/**
 * The platform's JSON error body. Server errors are logged and answered with the bare reason phrase, so no
 * internal detail reaches a client; an unreachable backing service (unavailable.ts) is 503 `SERVICE_UNAVAILABLE`.
 */
export function toErrorBody (error: FastifyError, request: FastifyRequest): ErrorBody {
  if (error.validation !== undefined) {
    return {
      statusCode: 400,
      error: reason(400),
      code: 'FST_ERR_VALIDATION',
      message: error.message,
      details: validationDetails(error.validation as ValidationIssue[], error.validationContext)
    }
  }
  const status =
    error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500
  if (status >= 500) {
    request.log.error({ err: error }, 'request failed')
    if ((error as unknown as Record<symbol, unknown>)[PUBLIC_CODE] === true) {
      return { statusCode: status, error: reason(status), code: error.code, message: error.message }
    }
    if (status === 500 && isUnavailableError(error)) {
      return {
        statusCode: 503,
        error: reason(503),
        code: 'SERVICE_UNAVAILABLE',
        message: 'A service this request depends on is unavailable; retry later'
      }
    }
    return { statusCode: status, error: reason(status), message: reason(status) }
  }
  const details = fieldDetails((error as { details?: unknown }).details)
  return {
    statusCode: status,
    error: reason(status),
    message: error.message,
    ...(error.code !== undefined ? { code: error.code } : {}),
    ...(details !== undefined ? { details } : {})
  }
}

/**
 * `details` a client error carries (`[{ field, message }]`, e.g. a coded semantic validation error), when
 * well-formed.
 */
function fieldDetails (value: unknown): ErrorBody['details'] {
  if (!Array.isArray(value)) return undefined
  const valid = value.every(
    (d) => typeof d === 'object' && d !== null && typeof d.field === 'string' && typeof d.message === 'string'
  )
  return valid
    ? value.map((d: { field: string, message: string }) => ({ field: d.field, message: d.message }))
    : undefined
}

export function errorHandler (
  this: FastifyInstance,
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply
) {
  const body = toErrorBody(error, request)
  return reply.code(body.statusCode).type('application/json; charset=utf-8').send(body)
}

export function notFoundHandler (request: FastifyRequest, reply: FastifyReply) {
  const body: ErrorBody = {
    statusCode: 404,
    error: reason(404),
    code: 'FST_ERR_NOT_FOUND',
    message: `Route ${request.method}:${request.url.split('?')[0] ?? ''} not found`
  }
  return reply.code(404).send(body)
}
