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
const SECRET_FIELDS = ['pin', 'newPin', 'confirmPin', 'password', 'secret', 'apiKey', 'token', 'invocation', 'ucanDelegation']

const headerPaths = (prefix: string) => SECRET_HEADERS.map((h) => `${prefix}["${h}"]`)

export const REDACT_PATHS = [
  ...headerPaths('req.headers'),
  ...headerPaths('res.headers'),
  ...headerPaths('headers'),
  ...headerPaths('*.headers'),
  ...SECRET_FIELDS.flatMap((f) => [f, `*.${f}`, `*.*.${f}`])
]

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
}

export function loggerOptions (options: LoggerOptions): FastifyServerOptions['logger'] {
  return {
    level: options.level,
    ...(options.stream !== undefined
      ? { stream: options.stream }
      : options.pretty === true ? { stream: pretty({ colorize: true, translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname' }) } : {}),
    redact: { paths: [...REDACT_PATHS, ...(options.redact ?? [])], censor: '[redacted]' },
    serializers: {
      req (req) {
        const headers: Record<string, unknown> = {}
        for (const name of LOGGED_HEADERS) if (req.headers[name] !== undefined) headers[name] = req.headers[name]
        return { method: req.method, url: req.url, host: req.host, remoteAddress: req.ip, headers }
      }
    }
  }
}
