import { Type, type Static } from '@sinclair/typebox'
import { auditConfigProperties, baseConfigProperties, loadConfig as load, peerUrlProperties } from '@impact/service-kit'
import { rateLimitConfigProperties } from '@impact/service-kit/rate-limits'
import { mcpServersIssues } from './services/mcp/servers.ts'

/**
 * Environment of oracle-runtime. Besides the platform's common keys:
 * ORACLE_PRIVATE_KEY, ORACLE_DID, ORACLE_NAME, ORACLE_FEATURES, BLOCKSYNC_GRAPHQL_URL, UCAN_AUTH_MAX_TTL_SECONDS,
 * UCAN_ALLOW_BARE_DELEGATION_AUTH, UCAN_DELEGATION_MAX_TTL_SECONDS, LLM_PROVIDER, LLM_BASE_URL, LLM_API_KEY,
 * LLM_MODEL, LLM_MODELS, ORACLE_MCP_SERVERS, LLM_TIMEOUT_MS, LLM_HEALTH_CACHE_MS, AGENT_MAX_STEPS, TOOL_TIMEOUT_MS,
 * BROWSER_TOOL_TIMEOUT_MS, ACTION_TIMEOUT_MS, APPROVAL_TIMEOUT_MS, CONTEXT_MAX_CHARS, TOOL_OUTPUT_MAX_CHARS,
 * TURN_OWNER_TTL_MS, SSE_HEARTBEAT_MS, REALTIME_HANDSHAKE_TIMEOUT_MS, REALTIME_MAX_CONNECTIONS, CREDITS_*,
 * RATE_LIMIT_*, DOMAIN_API_URL, DOMAIN_API_DID, CHAIN_REST_URL, CHAIN_REST_API_KEY, PLATFORM_DEFAULT_PROTOCOL.
 */
// Plugin names with an optional leading `+` (on) or `-` (off), comma-separated.
const FEATURES_PATTERN = '^\\s*[-+]?[A-Za-z0-9][\\w.-]*\\s*(,\\s*[-+]?[A-Za-z0-9][\\w.-]*\\s*)*$'

export const ConfigSchema = Type.Object({
  ...baseConfigProperties({ app: 'oracle-runtime', port: 3002 }),
  ...auditConfigProperties(),
  // The other apps, as `npm start` hands them over (scripts/platform.ts).
  ...peerUrlProperties(['DOMAIN_API_URL', 'CHAIN_REST_URL']),
  DOMAIN_API_DID: Type.Optional(Type.String({
    pattern: '^did:[a-z0-9]+:\\S+$',
    maxLength: 512,
    description: 'domain-api\'s DID, the audience of the oracle\'s invocations (plugin `platform`); ' +
      'default: read from GET / of DOMAIN_API_URL and cached'
  })),
  CHAIN_REST_API_KEY: Type.Optional(Type.String({
    minLength: 1,
    maxLength: 512,
    description: 'A key of the chain REST gateway\'s CHAIN_API_KEYS, sent as Authorization: Bearer by `query_chain`'
  })),
  PLATFORM_DEFAULT_PROTOCOL: Type.Optional(Type.String({
    pattern: '^did:[a-z0-9]+:\\S+$',
    maxLength: 512,
    description: 'Protocol (class) DID `register_domain` uses when the user names none, e.g. the programme\'s ' +
      'clean-cooking protocol; without it the protocol is a required argument'
  })),
  ORACLE_PRIVATE_KEY: Type.Optional(Type.String({
    pattern: '^M[A-Za-z0-9+/]+={0,2}$',
    description: 'The oracle\'s Ed25519 signer (ucanto format, `M…`). ' +
      'Required in production; generated once into DATA_DIR in development'
  })),
  ORACLE_DID: Type.Optional(Type.String({
    pattern: '^did:[a-z0-9]+:.+$',
    description: 'The oracle\'s DID when it is not the did:key of ORACLE_PRIVATE_KEY (a did:ixo oracle)'
  })),
  ORACLE_NAME: Type.String({
    default: 'Oracle',
    minLength: 1,
    maxLength: 80,
    description: 'Name the agent introduces itself with'
  }),
  ORACLE_FEATURES: Type.Optional(Type.String({
    pattern: FEATURES_PATTERN,
    description: 'Plugins to force on or off, comma-separated: `credits,-user-preferences` ' +
      '(a leading `-` turns one off); the app option `features` wins over it'
  })),
  BLOCKSYNC_GRAPHQL_URL: Type.Optional(Type.String({
    pattern: '^https?://',
    description: 'Blocksync GraphQL endpoint that resolves did:ixo signing keys'
  })),
  UCAN_AUTH_MAX_TTL_SECONDS: Type.Integer({
    minimum: 30,
    maximum: 86_400,
    default: 900,
    description: 'Longest accepted life of an auth invocation'
  }),
  UCAN_ALLOW_BARE_DELEGATION_AUTH: Type.Optional(Type.Boolean({
    description: 'Accept an x-ucan-delegation alone as credential (clients without invocation auth); ' +
      'it must grant * on ixo:oracle. Default: off in production, on otherwise'
  })),
  UCAN_DELEGATION_MAX_TTL_SECONDS: Type.Integer({
    minimum: 60,
    maximum: 31_536_000,
    default: 2_592_000,
    description: 'Longest accepted remaining life of a delegation (as a bare credential, next to an invocation, ' +
      'or stored with POST /delegation); default 30 days'
  }),
  LLM_PROVIDER: Type.Optional(Type.Union([Type.Literal('openai'), Type.Literal('offline')], {
    description: 'openai: any OpenAI-compatible API at LLM_BASE_URL; offline: the built-in offline agent. ' +
      'Default: openai with LLM_BASE_URL; without it offline, which production only runs when chosen explicitly'
  })),
  LLM_BASE_URL: Type.Optional(Type.String({
    pattern: '^https?://',
    description: 'OpenAI-compatible API base (…/v1); required unless LLM_PROVIDER=offline in production'
  })),
  LLM_API_KEY: Type.Optional(Type.String({ minLength: 1, description: 'Bearer key of the model provider' })),
  LLM_MODEL: Type.String({
    default: 'gpt-4o-mini',
    minLength: 1,
    description: 'Default model id sent to the provider'
  }),
  LLM_MODELS: Type.Optional(Type.String({
    description: 'Comma-separated model ids clients may pick (GET /models); defaults to LLM_MODEL'
  })),
  LLM_TIMEOUT_MS: Type.Integer({
    minimum: 1000,
    default: 60_000,
    description: 'How long the provider may take to start answering'
  }),
  LLM_HEALTH_CACHE_MS: Type.Integer({
    minimum: 0,
    default: 10_000,
    description: 'How long GET /health reuses its last probe of the model provider (GET {LLM_BASE_URL}/models)'
  }),
  AGENT_MAX_STEPS: Type.Integer({
    minimum: 1,
    maximum: 32,
    default: 8,
    description: 'Model calls per turn (each tool round is one)'
  }),
  TOOL_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    default: 30_000,
    description: 'Longest a server (plugin) tool call may run before the model is told it timed out (a tool may set ' +
      'its own `timeoutMs`); also the deadline of plugin hooks (loadState, onTurnEnd)'
  }),
  BROWSER_TOOL_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    default: 15_000,
    description: 'Wait for a browser tool result before telling the model the outcome is unknown'
  }),
  ACTION_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    default: 10_000,
    description: 'Wait for an AG-UI action result before telling the model the outcome is unknown'
  }),
  APPROVAL_TIMEOUT_MS: Type.Integer({
    minimum: 1000,
    maximum: 86_400_000,
    default: 300_000,
    description: 'How long a tool call that changes state waits for the user\'s approval before the model is ' +
      'told it timed out and the tool did not run'
  }),
  CONTEXT_MAX_CHARS: Type.Integer({
    minimum: 1000,
    default: 200_000,
    description: 'Budget of the context sent to the model, in characters: the oldest turns are dropped to fit; ' +
      'the system prompt (with preferences) and the current turn are always kept'
  }),
  TOOL_OUTPUT_MAX_CHARS: Type.Integer({
    minimum: 100,
    default: 16_000,
    description: 'Longest tool output the model is sent; a longer one is cut with a marker saying how much ' +
      'was left out (the stored output stays whole)'
  }),
  TURN_OWNER_TTL_MS: Type.Integer({
    minimum: 1000,
    maximum: 60_000,
    default: 10_000,
    description: 'Life of a process\'s liveness mark in shared state: a turn lease whose owner has been gone ' +
      'this long is taken over'
  }),
  SSE_HEARTBEAT_MS: Type.Integer({ minimum: 100, default: 15_000, description: 'Interval of SSE heartbeat comments' }),
  REALTIME_HANDSHAKE_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    default: 10_000,
    description: 'Time a WebSocket connection has to complete its handshake (socket.io CONNECT, /ws auth message)'
  }),
  REALTIME_MAX_CONNECTIONS: Type.Integer({
    minimum: 1,
    default: 10_000,
    description: 'WebSocket connections (socket.io and /ws) one process accepts; more are refused with ORACLE_WS_BUSY'
  }),
  ORACLE_MCP_SERVERS: Type.Optional(Type.String({
    description: 'MCP servers whose tools the agent gets (plugin `mcp`), a JSON array of ' +
      '{ name, url, protected?: true | [tool…], headers? }; see the README section MCP tools'
  })),
  ORACLE_OPERATOR_TOKEN: Type.Optional(Type.String({
    minLength: 16,
    description: 'Operator bearer token of GET /audit (the audit trail); without it the route does not exist'
  })),
  CREDITS_ADMIN_TOKEN: Type.Optional(Type.String({
    minLength: 16,
    description: 'Operator bearer token of the credits plugin\'s grant and settle routes'
  })),
  CREDITS_PER_MESSAGE: Type.Integer({ minimum: 0, default: 1, description: 'Credits one message turn costs' }),
  CREDITS_INITIAL_GRANT: Type.Integer({ minimum: 0, default: 0, description: 'Credits a new user starts with' }),
  CREDITS_TOPUP_AMOUNT: Type.Integer({
    minimum: 1,
    default: 100,
    description: 'Credits a payment claim is raised for when a user runs out'
  }),
  // Generous per IP (users behind one carrier NAT share it), tighter per DID (a turn can cost a model call).
  ...rateLimitConfigProperties({
    client: { max: 3000, windowMs: 60_000 },
    authFailures: { max: 100, windowMs: 300_000 },
    principal: { max: 300, windowMs: 60_000 }
  }, 'authenticated DID')
})
export type Config = Static<typeof ConfigSchema>

function refine (config: Config): string[] {
  const issues: string[] = []
  if (config.NODE_ENV === 'production' && config.ORACLE_PRIVATE_KEY === undefined) {
    issues.push('ORACLE_PRIVATE_KEY is required in production ' +
      '(the oracle\'s identity must not change between restarts or replicas)')
  }
  const { LLM_PROVIDER: provider, LLM_BASE_URL: baseUrl } = config
  if (provider === 'offline' && baseUrl !== undefined) {
    issues.push('LLM_PROVIDER=offline and LLM_BASE_URL contradict each other: unset LLM_BASE_URL, ' +
      'or set LLM_PROVIDER=openai')
  } else if (provider === 'openai' && baseUrl === undefined) {
    issues.push('LLM_PROVIDER=openai needs LLM_BASE_URL (the OpenAI-compatible API base, …/v1)')
  } else if (config.NODE_ENV === 'production' && provider === undefined && baseUrl === undefined) {
    issues.push('LLM_BASE_URL is required in production: set it to the model provider\'s API, ' +
      'or set LLM_PROVIDER=offline to run the built-in offline agent on purpose')
  }
  issues.push(...mcpServersIssues(config.ORACLE_MCP_SERVERS))
  // Settings of the `platform` plugin that would be silently ignored without the URL they belong to.
  for (const [key, needs] of [
    ['DOMAIN_API_DID', 'DOMAIN_API_URL'],
    ['PLATFORM_DEFAULT_PROTOCOL', 'DOMAIN_API_URL'],
    ['CHAIN_REST_API_KEY', 'CHAIN_REST_URL']
  ] as const) {
    if (config[key] !== undefined && config[needs] === undefined) issues.push(`${key} is set but ${needs} is not`)
  }
  const named = new Map<string, boolean>()
  for (const [name, on] of featureEntries(config.ORACLE_FEATURES)) {
    if (named.has(name)) issues.push(`ORACLE_FEATURES names ${name} twice`)
    named.set(name, on)
  }
  return issues
}

const featureEntries = (value: string | undefined): Array<[string, boolean]> =>
  (value ?? '').split(',').map((item) => item.trim()).filter((item) => item !== '')
    .map((item) => item.startsWith('-') ? [item.slice(1), false] : [item.replace(/^\+/, ''), true])

/** ORACLE_FEATURES as `features`: `credits,-user-preferences` → `{ credits: true, 'user-preferences': false }`. */
export const featuresFromEnv = (config: Pick<Config, 'ORACLE_FEATURES'>): Record<string, boolean> =>
  Object.fromEntries(featureEntries(config.ORACLE_FEATURES))

/** Whether a bare delegation authenticates: UCAN_ALLOW_BARE_DELEGATION_AUTH, else on everywhere but production. */
export const bareDelegationAuth = (config: Pick<Config, 'UCAN_ALLOW_BARE_DELEGATION_AUTH' | 'NODE_ENV'>): boolean =>
  config.UCAN_ALLOW_BARE_DELEGATION_AUTH ?? config.NODE_ENV !== 'production'

/** The model provider that runs: LLM_PROVIDER, else openai when LLM_BASE_URL is set (refine rules out the rest). */
export const llmProvider = (config: Pick<Config, 'LLM_PROVIDER' | 'LLM_BASE_URL'>): 'openai' | 'offline' =>
  config.LLM_PROVIDER ?? (config.LLM_BASE_URL !== undefined ? 'openai' : 'offline')

export const loadConfig = (env: Record<string, string | undefined> = process.env): Config =>
  load(ConfigSchema, env, refine)

/** The migration job's configuration (`src/migrate.ts`): the same, less the serving app's model provider choice. */
export const loadMigrationConfig = (env: Record<string, string | undefined> = process.env): Config =>
  loadConfig({ ...env, LLM_PROVIDER: 'offline', LLM_BASE_URL: undefined })
