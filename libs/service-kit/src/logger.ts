import type { FastifyServerOptions } from 'fastify'
import type { DestinationStream } from 'pino'
import pretty from 'pino-pretty'

/** Headers that carry credentials; they are dropped from every log line. */
export const SECRET_HEADERS = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-ucan-delegation',
  'x-matrix-access-token',
  'x-api-key'
]

/** Fields that carry PINs and other secrets wherever they appear one or two levels deep. */
const SECRET_FIELDS = [
  'pin',
  'newPin',
  'confirmPin',
  'temporaryPin',
  'password',
  'secret',
  'apiKey',
  'token',
  'invocation',
  'ucanDelegation'
]

const headerPaths = (prefix: string) => SECRET_HEADERS.map((h) => `${prefix}["${h}"]`)

export const REDACT_PATHS = [
  ...headerPaths('req.headers'),
  ...headerPaths('res.headers'),
  ...headerPaths('headers'),
  ...headerPaths('*.headers'),
  ...SECRET_FIELDS.flatMap((f) => [f, `*.${f}`, `*.*.${f}`])
]

/** Query parameters whose values never reach a log line (the app's redacted field names are added). */
const SECRET_PARAMS = [...SECRET_FIELDS, 'access_token', 'api_key', 'apikey', 'ucan', 'auth', 'authorization']

/**
 * The URL with every secret query parameter's value replaced: a caller may put a body field in a query
 * (`text=…*<PIN>`). Secret when any part of the name is (`user[pin]`, `user.pin`) or it cannot be decoded.
 */
export function redactUrl (url: string, names: ReadonlySet<string>): string {
  const start = url.indexOf('?')
  if (start < 0) return url
  const params = url.slice(start + 1).split(/([&;])/).map((param) => {
    const eq = param.indexOf('=')
    if (eq < 0) return param
    let parts: string[] | undefined
    try {
      parts = decodeURIComponent(param.slice(0, eq).replace(/\+/g, ' ')).toLowerCase().split(/[[\].]+/)
    } catch {
      parts = undefined
    }
    return parts !== undefined && !parts.some((part) => names.has(part)) ? param : `${param.slice(0, eq)}=[redacted]`
  })
  return `${url.slice(0, start + 1)}${params.join('')}`
}

/** Only these request headers are logged at all; everything else (credentials included) is left out. */
const LOGGED_HEADERS = ['user-agent', 'content-type', 'content-length', 'x-forwarded-for', 'x-request-id']

export interface LoggerOptions {
  level: string
  /** Extra pino redaction paths of the app (e.g. the USSD `text`, which carries PINs). */
  redact?: string[]
  /** Write logs here instead of stdout (tests). */
  stream?: DestinationStream
  /** Human-readable lines (redaction still applies: it happens before formatting). */
  pretty?: boolean
  /** Fields added to every line when it is written (the active trace's ids). */
  mixin?: () => Record<string, unknown>
}

export function loggerOptions (options: LoggerOptions): FastifyServerOptions['logger'] {
  // `*.text` and `text` both name the field `text`: its values are secret in a query too.
  const secretParams = new Set(
    [...SECRET_PARAMS, ...(options.redact ?? []).map((path) => path.slice(path.lastIndexOf('.') + 1))].map((name) =>
      name.toLowerCase()
    )
  )
  return {
    level: options.level,
    ...(options.stream !== undefined
      ? { stream: options.stream }
      : options.pretty === true
        ? { stream: pretty({ colorize: true, translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname' }) }
        : {}),
    redact: { paths: [...REDACT_PATHS, ...(options.redact ?? [])], censor: '[redacted]' },
    ...(options.mixin !== undefined ? { mixin: options.mixin } : {}),
    serializers: {
      req (req) {
        const headers: Record<string, unknown> = {}
        for (const name of LOGGED_HEADERS) if (req.headers[name] !== undefined) headers[name] = req.headers[name]
        return {
          method: req.method,
          url: redactUrl(req.url, secretParams),
          host: req.host,
          remoteAddress: req.ip,
          headers
        }
      }
    }
  }
}
