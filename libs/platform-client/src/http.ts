import { Value } from '@sinclair/typebox/value'
import { ErrorBodySchema } from '@impact/schemas'
import { PlatformClientError, type PlatformService } from './errors.ts'

export interface HttpRequest {
  service: PlatformService
  method: 'GET' | 'POST'
  url: URL
  headers?: Record<string, string>
  body?: unknown
  timeoutMs: number
  /** The caller's signal (a cancelled tool call): its abort is rethrown as is. */
  signal?: AbortSignal | undefined
}

export interface HttpAnswer { status: number, body: unknown }

/**
 * One request with a deadline: the JSON answer, or a coded error when the service cannot be reached,
 * does not answer in time or answers something that is not JSON. HTTP error statuses are returned.
 */
export async function send (request: HttpRequest): Promise<HttpAnswer> {
  const { service, signal } = request
  const timeout = AbortSignal.timeout(request.timeoutMs)
  const headers: Record<string, string> = { accept: 'application/json', ...request.headers }
  if (request.body !== undefined) headers['content-type'] = 'application/json'
  let response: Response
  let text: string
  try {
    response = await fetch(request.url, {
      method: request.method,
      headers,
      ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
      signal: signal !== undefined ? AbortSignal.any([timeout, signal]) : timeout,
      redirect: 'error'
    })
    text = await response.text()
  } catch (error) {
    if (signal?.aborted === true) throw signal.reason
    if (timeout.aborted) {
      const message = `${service} did not answer within ${request.timeoutMs} ms`
      throw new PlatformClientError('PLATFORM_TIMEOUT', message, 504, { service, cause: error })
    }
    const message = `${service} cannot be reached`
    throw new PlatformClientError('PLATFORM_UNAVAILABLE', message, 503, { service, cause: error })
  }
  if (text === '') return { status: response.status, body: undefined }
  try {
    return { status: response.status, body: JSON.parse(text) }
  } catch (error) {
    throw badResponse(service, `${service} answered ${response.status} with a body that is not JSON`, error)
  }
}

export const badResponse = (service: PlatformService, message: string, cause?: unknown) =>
  new PlatformClientError('PLATFORM_BAD_RESPONSE', message, 502, { service, cause })

interface GraphqlErrors { errors: Array<{ message: string, extensions?: { code?: unknown } }> }
const isGraphqlErrors = (body: unknown): body is GraphqlErrors => {
  const errors = (body as { errors?: unknown } | undefined)?.errors
  return Array.isArray(errors) && errors.length > 0 && typeof errors[0]?.message === 'string'
}

/**
 * A refusal in the platform's JSON error body (`{ statusCode, code, error, message, details? }`), or
 * a GraphQL request error (`{ errors }`, coded by the first error's `extensions.code`).
 */
export function errorFromBody (
  service: PlatformService,
  answer: HttpAnswer,
  ability?: string
): PlatformClientError {
  const { status, body } = answer
  if (isGraphqlErrors(body) && !Value.Check(ErrorBodySchema, body)) {
    const [first] = body.errors
    const code = typeof first?.extensions?.code === 'string' ? first.extensions.code : `HTTP_${status}`
    return new PlatformClientError(code, first?.message ?? '', status, { service, ability, details: body.errors })
  }
  if (!Value.Check(ErrorBodySchema, body)) return badResponse(service, `${service} answered ${status}`)
  return new PlatformClientError(body.code ?? `HTTP_${status}`, body.message, status, {
    service,
    ability,
    ...(body.details !== undefined ? { details: body.details } : {})
  })
}

/** gRPC code names (google.rpc.Code) for the chain gateway's `{ code, message, details }` errors. */
const GRPC_NAMES = [
  'OK', 'CANCELLED', 'UNKNOWN', 'INVALID_ARGUMENT', 'DEADLINE_EXCEEDED', 'NOT_FOUND', 'ALREADY_EXISTS',
  'PERMISSION_DENIED', 'RESOURCE_EXHAUSTED', 'FAILED_PRECONDITION', 'ABORTED', 'OUT_OF_RANGE', 'UNIMPLEMENTED',
  'INTERNAL', 'UNAVAILABLE', 'DATA_LOSS', 'UNAUTHENTICATED'
]

/** A refusal of the chain gateway (a google.rpc.Status body), coded `CHAIN_<gRPC code name>`. */
export function errorFromStatus (answer: HttpAnswer): PlatformClientError {
  const service = 'chain-rest-gateway'
  const body = answer.body as { code?: unknown, message?: unknown, details?: unknown } | undefined
  if (typeof body?.code !== 'number' || typeof body.message !== 'string') {
    return badResponse(service, `${service} answered ${answer.status}`)
  }
  const name = GRPC_NAMES[body.code] ?? 'UNKNOWN'
  return new PlatformClientError(`CHAIN_${name}`, body.message, answer.status, { service, details: body.details })
}

/** `base` (which may carry a path prefix) joined with `path`, with `query` as its search string. */
export function endpoint (base: string, path: string, query?: URLSearchParams): URL {
  const url = new URL(base)
  url.pathname = url.pathname.replace(/\/+$/, '') + path
  url.search = query !== undefined ? query.toString() : ''
  url.hash = ''
  return url
}
