import { Type, type Static } from '@sinclair/typebox'
import { auditConfigProperties, baseConfigProperties, loadConfig as load, peerUrlProperties } from '@impact/service-kit'
import { parseSigner } from '@impact/ucan/mint'
import { DISPLAY_NAME_PATTERN, MAX_DISPLAY_NAME } from './schemas/programmes.ts'
import { keyringIssues } from './services/pin-keyring.ts'
import { readProgrammesFileSync } from './services/programmes.ts'

/** Environment of the USSD gateway; every key is documented in README.md. */
export const ConfigSchema = Type.Object({
  ...baseConfigProperties({ app: 'ussd-gateway', port: 3000 }),
  ...auditConfigProperties(),
  // The other apps, as `npm start` hands them over (scripts/platform.ts).
  ...peerUrlProperties(['DOMAIN_API_URL', 'ORACLE_URL', 'CHAIN_REST_URL']),
  RATE_LIMIT_MAX: Type.Integer({
    minimum: 1,
    default: 100,
    description: 'Requests per window per client IP on the USSD routes'
  }),
  RATE_LIMIT_PHONE_MAX: Type.Integer({
    minimum: 1,
    default: 30,
    description: 'Requests per window per phone number (aggregators share a few IPs)'
  }),
  RATE_LIMIT_WINDOW_MS: Type.Integer({
    minimum: 1000,
    default: 60_000,
    description: 'Rate limit window in milliseconds'
  }),
  RATE_LIMIT_ALLOWLIST: Type.Optional(Type.String({
    description: 'Comma-separated client IPs exempt from the per-IP limit (the per-phone limit still applies)'
  })),
  USSD_SESSION_TTL_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 86_400,
    default: 180,
    description: 'Inactivity after which a session expires'
  }),
  USSD_HOP_DEADLINE_MS: Type.Integer({
    minimum: 100,
    maximum: 60_000,
    default: 8000,
    description: 'Longest a hop may wait on the database, Redis or another hop of its session ' +
      'before the aggregator gets the unavailable END (Africa\'s Talking waits 15 s)'
  }),
  USSD_APP_NAME: Type.String({
    minLength: 1,
    maxLength: MAX_DISPLAY_NAME,
    pattern: DISPLAY_NAME_PATTERN,
    default: 'Impact Platform',
    description: 'Name shown on the welcome screen (plain GSM-7 text) for service codes without a programme'
  }),
  USSD_PROGRAMMES_FILE: Type.Optional(Type.String({
    minLength: 1,
    description: 'JSON or YAML file of the programmes by service code (name, project, languages, menus); ' +
      'read again when it changes. Without it every code shows USSD_APP_NAME and the standard menus'
  })),
  USSD_PROGRAMMES_POLL_MS: Type.Integer({
    minimum: 50,
    maximum: 3_600_000,
    default: 5000,
    description: 'How often USSD_PROGRAMMES_FILE is read for changes (a change is taken once it stays ' +
      'the same for one more read)'
  }),
  USSD_ACCOUNTS_PER_PHONE: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 1,
    description: 'Accounts one phone number may sign up; beyond, sign-up ends with a text to log in instead'
  }),
  USSD_SESSION_RECORD_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    maximum: 3650,
    default: 90,
    description: 'Days an ended session\'s record (service code, network, hops, last screen, duration, the ' +
      'aggregator\'s cost and status) is kept for the drop-off report; older ones are purged'
  }),
  USSD_PRIVATE_KEY: Type.Optional(Type.String({
    pattern: '^M[A-Za-z0-9+/]+={0,2}$',
    maxLength: 256,
    description: 'The gateway\'s own Ed25519 signer (ucanto format, `M…`), announced as its DID on GET /. ' +
      'Required in production; generated once into DATA_DIR in development'
  })),
  USSD_SERVICE_CODES: Type.Optional(Type.String({
    pattern: '^\\*\\d+(\\*\\d+)*#(,\\s*\\*\\d+(\\*\\d+)*#)*$',
    description: 'Comma-separated base codes (e.g. *384*123#); ' +
      'a dial with extra segments after one of them is a shortcut'
  })),
  OPERATOR_TOKEN: Type.Optional(Type.String({
    minLength: 16,
    description: 'Bearer token of the operator debug endpoints'
  })),
  SUPPORT_TOKEN: Type.Optional(Type.String({
    minLength: 16,
    description: 'Bearer token of support\'s PIN reset (POST /api/ussd/accounts/:customerId/pin-reset); ' +
      'the route exists only with it'
  })),
  PIN_ENCRYPTION_KEY: Type.Optional(Type.String({
    description: '32-byte key (64 hex characters or base64) sealing PIN hashes with AES-256-GCM'
  })),
  PIN_ENCRYPTION_KEY_ID: Type.Optional(Type.String({
    pattern: '^[A-Za-z0-9_-]{1,16}$',
    description: 'Id stored with each PIN record; defaults to a fingerprint of the key'
  })),
  PIN_ENCRYPTION_PREVIOUS_KEYS: Type.Optional(Type.String({
    description: 'Retired keys still accepted for reading, as id:key pairs separated by commas; ' +
      'records move to the current key on the next login'
  })),
  PIN_LOCKOUT_BASE_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 604_800,
    default: 900,
    description: 'Cool-down of an account\'s first lockout after 3 wrong PINs; it doubles with each further lockout ' +
      'until a successful login'
  }),
  PIN_LOCKOUT_MAX_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 2_592_000,
    default: 86_400,
    description: 'Longest cool-down of a lockout (the doubling stops there); at least PIN_LOCKOUT_BASE_SECONDS'
  }),
  PIN_CHECK_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 64,
    default: 2,
    description: 'PIN hashes (scrypt) computed at once; the rest of libuv\'s thread pool stays free for other work'
  }),
  PIN_CHECK_QUEUE_MAX: Type.Integer({
    minimum: 0,
    maximum: 10_000,
    default: 16,
    description: 'PIN hashes waiting for their turn; past that, a hop that needs one ends with the busy text'
  }),
  SMS_PROVIDER: Type.Optional(Type.Literal('africastalking', {
    description: 'Who sends the SMS (Customer ID at sign-up, temporary PINs, lockouts); SMS is off when unset'
  })),
  SMS_BASE_URL: Type.Optional(Type.String({
    format: 'uri',
    pattern: '^https?://',
    maxLength: 2048,
    description: 'The provider\'s API base, e.g. https://api.africastalking.com ' +
      '(sandbox: https://api.sandbox.africastalking.com)'
  })),
  SMS_USERNAME: Type.Optional(Type.String({
    minLength: 1,
    maxLength: 128,
    description: 'The provider account\'s username (Africa\'s Talking: `sandbox` on the sandbox)'
  })),
  SMS_API_KEY: Type.Optional(Type.String({
    minLength: 1,
    maxLength: 512,
    description: 'The provider\'s API key: a secret, never logged'
  })),
  SMS_SENDER_ID: Type.Optional(Type.String({
    minLength: 1,
    maxLength: 16,
    description: 'Registered sender id or short code the SMS come from; the account\'s default when unset'
  })),
  SMS_MAX_ATTEMPTS: Type.Integer({
    minimum: 1,
    maximum: 20,
    default: 8,
    description: 'Sends of one SMS before it is given up (and logged)'
  }),
  SMS_RETRY_BASE_MS: Type.Integer({
    minimum: 100,
    maximum: 3_600_000,
    default: 30_000,
    description: 'Wait before the first retry of a failed send; each further retry waits twice as long, at most an hour'
  }),
  SIMULATOR_ENABLED: Type.Optional(Type.Boolean({
    description: 'Serve the phone simulator at /simulator (default: on except in production)'
  })),
  REDIS_KEY_PREFIX: Type.String({
    pattern: '^[A-Za-z0-9:_-]{1,40}$',
    default: 'ussd:',
    description: 'Namespace of this app\'s Redis keys'
  })
})
export type Config = Static<typeof ConfigSchema>

/** Rules that involve more than one variable, or the environment. */
function refine (config: Config): string[] {
  const issues = keyringIssues(config)
  if (config.NODE_ENV === 'production' && config.PIN_ENCRYPTION_KEY === undefined) {
    issues.push('PIN_ENCRYPTION_KEY is required in production (32 bytes as 64 hex characters or base64)')
  }
  if (config.PIN_LOCKOUT_MAX_SECONDS < config.PIN_LOCKOUT_BASE_SECONDS) {
    issues.push('PIN_LOCKOUT_MAX_SECONDS must be at least PIN_LOCKOUT_BASE_SECONDS')
  }
  if (config.USSD_PRIVATE_KEY !== undefined) {
    try {
      parseSigner(config.USSD_PRIVATE_KEY)
    } catch {
      issues.push('USSD_PRIVATE_KEY: not an Ed25519 signer in ucanto\'s format (`M…`)')
    }
  } else if (config.NODE_ENV === 'production') {
    issues.push('USSD_PRIVATE_KEY is required in production (the gateway\'s DID must not change between ' +
      'restarts or replicas)')
  }
  if (config.SMS_PROVIDER !== undefined) {
    const needed = ['SMS_BASE_URL', 'SMS_USERNAME', 'SMS_API_KEY'] as const
    const missing = needed.filter((key) => config[key] === undefined)
    if (missing.length > 0) issues.push(`SMS_PROVIDER=${config.SMS_PROVIDER} needs ${missing.join(', ')}`)
  }
  if (config.USSD_PROGRAMMES_FILE !== undefined) {
    const read = readProgrammesFileSync(config.USSD_PROGRAMMES_FILE)
    if (!read.ok) issues.push(...read.issues.map((issue) => `USSD_PROGRAMMES_FILE ${issue}`))
  }
  return issues
}

export const loadConfig = (env: Record<string, string | undefined> = process.env): Config =>
  load(ConfigSchema, env, refine)

export const simulatorEnabled = (config: Config): boolean =>
  config.SIMULATOR_ENABLED ?? config.NODE_ENV !== 'production'
