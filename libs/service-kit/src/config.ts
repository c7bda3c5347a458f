import {
  FormatRegistry, Type, type Static, type TObject, type TOptional, type TSchema, type TString
} from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { metricsConfigProperties, metricsPortIssues } from './metrics/config.ts'
import { tracingConfigProperties } from './tracing/config.ts'

export class ConfigError extends Error {
  readonly issues: string[]
  constructor (issues: string[]) {
    super(`Invalid configuration:\n${issues.map((issue) => `  - ${issue}`).join('\n')}`)
    this.name = 'ConfigError'
    this.issues = issues
  }
}

const Bool = (defaultValue: boolean, description: string) => Type.Boolean({ default: defaultValue, description })

/** The proxies TRUST_PROXY_ENABLED trusts unless TRUST_PROXY_ADDRESSES names others: private networks. */
export const DEFAULT_TRUSTED_PROXIES = 'loopback,linklocal,uniquelocal'

/** The environment every app reads; apps spread it into their own `ConfigSchema` and add their keys. */
export function baseConfigProperties (defaults: { app: string, port: number }) {
  return {
    NODE_ENV: Type.Union([Type.Literal('development'), Type.Literal('production'), Type.Literal('test')], {
      default: 'development',
      description: 'development | production | test. Production turns on the safe defaults.'
    }),
    HOST: Type.String({ default: '127.0.0.1', description: 'Bind address (0.0.0.0 in containers)' }),
    PORT: Type.Integer({ minimum: 0, maximum: 65535, default: defaults.port, description: 'Listen port' }),
    ...metricsConfigProperties(),
    LOG_LEVEL: Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)), {
      default: 'info',
      description: 'pino log level'
    }),
    LOG_PRETTY: Bool(false, 'Human-readable logs instead of JSON lines (development terminals)'),
    DATABASE_URL: Type.Optional(
      Type.String({ pattern: '^postgres(ql)?://', description: 'PostgreSQL server; embedded PGlite when unset' })
    ),
    DATA_DIR: Type.String({
      default: `.data/${defaults.app}`,
      description: 'Embedded database and generated dev secrets; memory:// for an in-memory database'
    }),
    MIGRATE_ON_START: Type.Union([Type.Literal('auto'), Type.Literal('always'), Type.Literal('never')], {
      default: 'auto',
      description: 'auto: migrate the embedded database at start, leave servers to `npm run migrate`'
    }),
    REDIS_URL: Type.Optional(
      Type.String({
        pattern: '^rediss?://',
        description: 'Redis for state shared across replicas; in-process when unset'
      })
    ),
    CORS_ORIGIN: Type.Optional(Type.String({ description: 'Comma-separated allowed origins, or *' })),
    TRUST_PROXY_ENABLED: Bool(false, 'Trust X-Forwarded-* from a reverse proxy (client IP for rate limits and logs)'),
    TRUST_PROXY_ADDRESSES: Type.String({
      minLength: 1,
      default: DEFAULT_TRUSTED_PROXIES,
      description:
        'With TRUST_PROXY_ENABLED: the proxies to trust (IP/CIDR list, or loopback, linklocal, uniquelocal). The ' +
          'client IP is the last X-Forwarded-For entry not from one of them, so an entry the client forged in ' +
          'front is ignored'
    }),
    SHUTDOWN_GRACE_MS: Type.Integer({
      minimum: 0,
      default: 10_000,
      description: 'How long in-flight requests may take to finish on shutdown'
    }),
    ...tracingConfigProperties()
  }
}

/** The apps' base URLs, under the names `npm start` hands them to the other apps (scripts/platform.ts). */
export const PEER_URLS = {
  DOMAIN_API_URL: 'the domain API (registry of domains)',
  ORACLE_URL: 'the oracle runtime',
  CHAIN_REST_URL: 'the chain REST gateway'
} as const
export type PeerUrlKey = keyof typeof PEER_URLS

// TypeBox checks formats only once they are registered; a base URL must parse as a URL.
if (!FormatRegistry.Has('uri')) FormatRegistry.Set('uri', (value) => URL.canParse(value))

/** The config keys of the peers an app is handed, each an optional http(s) base URL. */
export function peerUrlProperties<K extends PeerUrlKey> (keys: readonly K[]): Record<K, TOptional<TString>> {
  return Object.fromEntries(keys.map((key) => [key, Type.Optional(Type.String({
    format: 'uri',
    pattern: '^https?://',
    maxLength: 2048,
    description: `Base URL of ${PEER_URLS[key]} (http or https); \`npm start\` sets it to the one it runs`
  }))])) as Record<K, TOptional<TString>>
}

export const BaseConfigSchema = Type.Object(baseConfigProperties({ app: 'app', port: 3000 }))
export type BaseConfig = Static<typeof BaseConfigSchema>

function describeIssue (path: string, schema: TSchema, message: string): string {
  const name = path.replace(/^\//, '') || 'configuration'
  const options = (schema.anyOf as TSchema[] | undefined)?.map((s) => s.const).filter((c) => c !== undefined)
  if (options !== undefined && options.length > 0) return `${name} must be one of: ${options.join(', ')}`
  // The value itself is never echoed: a mistyped variable may hold a secret.
  // Only the first letter: the rest may quote a pattern, whose case matters.
  return `${name}: ${message.charAt(0).toLowerCase()}${message.slice(1)}`
}

/**
 * Reads the schema's keys from the environment, coerces them (numbers, booleans), applies defaults
 * and validates everything at once, so a bad deployment fails at start with every bad variable named.
 * `refine` adds cross-field rules (e.g. "required in production").
 */
export function loadConfig<T extends TObject> (
  schema: T,
  env: Record<string, string | undefined> = process.env,
  refine?: (config: Static<T>) => string[]
): Static<T> {
  const raw: Record<string, unknown> = {}
  for (const key of Object.keys(schema.properties)) {
    const value = env[key]
    if (value !== undefined && value.trim() !== '') raw[key] = value.trim()
  }
  const config = Value.Default(schema, Value.Convert(schema, raw))
  const issues = new Map<string, string>()
  for (const error of Value.Errors(schema, config)) {
    if (!issues.has(error.path)) issues.set(error.path, describeIssue(error.path, error.schema, error.message))
  }
  const list = [...issues.values()]
  if (list.length === 0) list.push(...metricsPortIssues(config as Record<string, unknown>))
  if (list.length === 0 && refine !== undefined) list.push(...refine(config as Static<T>))
  if (list.length > 0) throw new ConfigError(list)
  return Value.Clean(schema, config) as Static<T>
}

/**
 * Splits `CORS_ORIGIN` into what @fastify/cors expects: `*`, or a list of exact origins (a list
 * even for one, so the header is only sent back to a matching origin).
 */
export function parseOrigins (value: string | undefined): '*' | string[] | undefined {
  if (value === undefined) return undefined
  const origins = value.split(',').map((o) => o.trim()).filter((o) => o !== '')
  if (origins.length === 0) return undefined
  return origins.includes('*') ? '*' : origins
}
