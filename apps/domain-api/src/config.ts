import { Type, type Static } from '@sinclair/typebox'
import { auditConfigProperties, baseConfigProperties, loadConfig as load, peerUrlProperties } from '@impact/service-kit'
import { rateLimitConfigProperties } from '@impact/service-kit/rate-limits'
import { DID_PATTERN } from '@impact/schemas'
import { parseSigner } from '@impact/ucan'
import { QUORUM_RULE_PATTERN } from './services/tally.ts'

/** Shortest bootstrap admin key accepted anywhere: 32 characters of a random token is ≥ 160 bits. */
export const MIN_ADMIN_KEY_LENGTH = 32

export const ConfigSchema = Type.Object({
  ...baseConfigProperties({ app: 'domain-api', port: 3001 }),
  ...auditConfigProperties(),
  // The other apps, as `npm start` hands them over (scripts/platform.ts).
  ...peerUrlProperties(['ORACLE_URL', 'CHAIN_REST_URL']),
  DOMAIN_API_ADMIN_KEY: Type.Optional(Type.String({
    minLength: MIN_ADMIN_KEY_LENGTH,
    maxLength: 512,
    description: 'Bootstrap admin API key (≥ 32 random characters); it can issue and revoke the other keys'
  })),
  DOMAIN_API_ADMIN_ACCOUNT: Type.String({
    pattern: DID_PATTERN,
    default: 'did:ixo:domain-api-admin',
    description: 'Account (DID) the bootstrap admin key acts for'
  }),
  DOMAIN_API_PRIVATE_KEY: Type.Optional(Type.String({
    pattern: '^M[A-Za-z0-9+/]+={0,2}$',
    maxLength: 256,
    description: 'The registry\'s Ed25519 signer (ucanto format, `M…`); its did:key is the audience of UCAN ' +
      'invocations. Required in production; generated once into DATA_DIR in development'
  })),
  BLOCKSYNC_GRAPHQL_URL: Type.Optional(Type.String({
    pattern: '^https?://',
    description: 'Blocksync GraphQL endpoint that resolves the signing keys of did:ixo accounts in UCAN chains'
  })),
  DOMAIN_EXTERNAL_CLASS_METHODS: Type.String({
    pattern: '^(none|[a-z0-9]+(,[a-z0-9]+)*)$',
    maxLength: 512,
    default: 'ixo',
    description: 'DID methods a class outside this registry may have, comma-separated (e.g. `ixo,web`); `none`: ' +
      'every class must be a verified protocol of this registry'
  }),
  VERIFICATION_QUORUM: Type.String({
    pattern: QUORUM_RULE_PATTERN,
    default: '3',
    description: 'Votes (yes, no or abstain) a proposal needs before it can pass: a count (`3`, up to 9999) or a ' +
      'share of the proposal\'s electorate (`40%`, `33.33%`; rounded up), resolved when the proposal opens'
  }),
  VERIFICATION_THRESHOLD: Type.Number({
    exclusiveMinimum: 0,
    maximum: 1,
    default: 0.6,
    description: 'Fraction of yes among yes+no a proposal needs to pass'
  }),
  VERIFICATION_PERIOD_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 365 * 86_400,
    default: 7 * 86_400,
    description: 'Voting period of a proposal'
  }),
  VERIFICATION_SWEEP_INTERVAL_SECONDS: Type.Integer({
    minimum: 0,
    maximum: 86_400,
    default: 60,
    description: 'How often ended voting periods and expired domains are settled in the background (0: only when read)'
  }),
  IDEMPOTENCY_TTL_SECONDS: Type.Integer({
    minimum: 60,
    maximum: 30 * 86_400,
    default: 86_400,
    description: 'How long an Idempotency-Key is remembered'
  }),
  API_KEY_CACHE_TTL_SECONDS: Type.Integer({
    minimum: 0,
    maximum: 300,
    default: 10,
    description: 'How long a verified API key is cached in memory ' +
      '(revocations also evict at once, across replicas via REDIS_URL)'
  }),
  DATABASE_POOL_MAX: Type.Integer({
    minimum: 1,
    maximum: 200,
    default: 10,
    description: 'Connections to a PostgreSQL server'
  }),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: Type.Optional(Type.Boolean({
    description: 'Let webhooks target loopback, private and link-local addresses ' +
      '(default: false in production, true otherwise)'
  })),
  WEBHOOK_POLL_INTERVAL_MS: Type.Integer({
    minimum: 10,
    maximum: 60_000,
    default: 1000,
    description: 'How often the delivery worker looks for new events and due deliveries'
  }),
  WEBHOOK_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 60_000,
    default: 10_000,
    description: 'Time a receiver has to answer one delivery attempt'
  }),
  WEBHOOK_MAX_ATTEMPTS: Type.Integer({
    minimum: 1,
    maximum: 100,
    default: 16,
    description: 'Attempts before a delivery is marked failed (it can still be redelivered on request)'
  }),
  WEBHOOK_RETRY_BASE_MS: Type.Integer({
    minimum: 1,
    maximum: 3_600_000,
    default: 10_000,
    description: 'Delay before the first retry; it doubles per attempt, with jitter'
  }),
  WEBHOOK_RETRY_MAX_MS: Type.Integer({
    minimum: 1,
    maximum: 86_400_000,
    default: 3_600_000,
    description: 'Longest delay between two attempts'
  }),
  WEBHOOK_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 200,
    default: 20,
    description: 'Deliveries one replica sends at once'
  }),
  GRAPHIQL_ENABLED: Type.Optional(Type.Boolean({
    description: 'Serve GraphiQL at /graphiql (default: on in development only)'
  })),
  GRAPHQL_MAX_DEPTH: Type.Integer({
    minimum: 2,
    maximum: 50,
    default: 15,
    description: 'Deepest selection nesting a GraphQL query may have (the standard introspection query needs 15)'
  }),
  GRAPHQL_MAX_COST: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 5000,
    description: 'Most objects a GraphQL query may ask for: each object field counts 1, ' +
      'a page `first` times its selection'
  }),
  // A programme's backend stays well below these; a key guesser meets 429 after 30 wrong keys.
  ...rateLimitConfigProperties({
    client: { max: 3000, windowMs: 60_000 },
    authFailures: { max: 30, windowMs: 300_000 },
    principal: { max: 1200, windowMs: 60_000 }
  }, 'API key')
})
export type Config = Static<typeof ConfigSchema>

const PLACEHOLDER = /change.?me|example|password|secret|admin.?key|test|x{8}|0{8}/i

/** Production refuses a bootstrap key that looks hand-made: few distinct characters or a placeholder word. */
function refine (config: Config): string[] {
  const issues: string[] = []
  if (config.DOMAIN_API_PRIVATE_KEY !== undefined) {
    try {
      parseSigner(config.DOMAIN_API_PRIVATE_KEY)
    } catch {
      issues.push('DOMAIN_API_PRIVATE_KEY: not an Ed25519 signer in ucanto\'s format (`M…`)')
    }
  } else if (config.NODE_ENV === 'production') {
    issues.push('DOMAIN_API_PRIVATE_KEY is required in production ' +
      '(the registry\'s DID must not change between restarts or replicas)')
  }
  const key = config.DOMAIN_API_ADMIN_KEY
  if (config.NODE_ENV !== 'production' || key === undefined) return issues
  const distinct = new Set(key).size
  if (distinct < 16 || PLACEHOLDER.test(key)) {
    issues.push('DOMAIN_API_ADMIN_KEY: too weak for production (use a random token, e.g. `openssl rand -base64 36`)')
  }
  return issues
}

/** The DID methods of DOMAIN_EXTERNAL_CLASS_METHODS. */
export const externalClassMethods = (config: Pick<Config, 'DOMAIN_EXTERNAL_CLASS_METHODS'>): Set<string> =>
  new Set(config.DOMAIN_EXTERNAL_CLASS_METHODS === 'none' ? [] : config.DOMAIN_EXTERNAL_CLASS_METHODS.split(','))

export const loadConfig = (env: Record<string, string | undefined> = process.env): Config =>
  load(ConfigSchema, env, refine)
