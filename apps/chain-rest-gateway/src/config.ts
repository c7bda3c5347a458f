import { readFileSync } from 'node:fs'
import { Type, type Static } from '@sinclair/typebox'
import { baseConfigProperties, loadConfig as load, peerUrlProperties } from '@impact/service-kit'
import { rateLimitConfigProperties } from '@impact/service-kit/rate-limits'

/** Where `npm start` runs the development node (src/dev-node), the default upstream outside production. */
export const DEV_NODE_URL = '127.0.0.1:9190'

export const ConfigSchema = Type.Object({
  ...baseConfigProperties({ app: 'chain-rest-gateway', port: 3003 }),
  // The other apps, as `npm start` hands them over (scripts/platform.ts).
  ...peerUrlProperties(['DOMAIN_API_URL', 'ORACLE_URL']),
  ...rateLimitConfigProperties({
    client: { max: 1200, windowMs: 60_000 },
    authFailures: { max: 30, windowMs: 60_000 },
    principal: { max: 6000, windowMs: 60_000 }
  }, 'API key'),
  CHAIN_GRPC_URL: Type.Optional(Type.String({
    description: 'Comma-separated gRPC addresses of chain nodes in failover order: ' +
      'host:port (plaintext), grpcs://host:port or https://host (TLS). ' +
      `Defaults to the development node ${DEV_NODE_URL} outside production; required in production.`
  })),
  CHAIN_BROADCAST_URL: Type.Optional(Type.String({
    description: 'gRPC node(s) that POST /cosmos/tx/v1beta1/txs and /simulate are passed to (same forms as ' +
      'CHAIN_GRPC_URL, same TLS settings); unset: broadcast off, those paths answer 404'
  })),
  CHAIN_GRPC_CA_FILE: Type.Optional(Type.String({
    description: 'PEM file of the CA that signed the TLS nodes\' certificates (a private CA); system roots when unset'
  })),
  CHAIN_GRPC_CLIENT_CERT_FILE: Type.Optional(Type.String({
    description: 'PEM client certificate presented to TLS nodes (mTLS); with CHAIN_GRPC_CLIENT_KEY_FILE'
  })),
  CHAIN_GRPC_CLIENT_KEY_FILE: Type.Optional(Type.String({
    description: 'PEM private key of CHAIN_GRPC_CLIENT_CERT_FILE'
  })),
  CHAIN_GRPC_API_KEY: Type.Optional(Type.String({
    description: 'API key sent to the nodes as gRPC metadata on every call (commercial providers); never logged'
  })),
  CHAIN_GRPC_API_KEY_HEADER: Type.String({
    default: 'x-api-key',
    pattern: '^[a-z0-9][a-z0-9_.-]*$',
    description: 'Metadata name of CHAIN_GRPC_API_KEY (lowercase), e.g. x-api-key or authorization'
  }),
  CHAIN_DESCRIPTOR_SOURCE: Type.Union([Type.Literal('auto'), Type.Literal('reflection'), Type.Literal('bundled')], {
    default: 'auto',
    description: 'Where routes come from: auto = the node\'s cosmos.reflection.v1 service, serving the bundled ' +
      'descriptor set until it answers; reflection = the node only: 503 not-ready until it answers (production); ' +
      'bundled = the shipped set only'
  }),
  CHAIN_REFLECTION_RETRY_MAX_MS: Type.Integer({
    minimum: 100,
    default: 60_000,
    description: 'Longest wait between reflection attempts while the node has not handed out its descriptors'
  }),
  CHAIN_DESCRIPTOR_REFRESH_MS: Type.Integer({
    minimum: 0,
    default: 300_000,
    description: 'How often the node\'s descriptors are read again, so a chain upgrade\'s routes and fields ' +
      'appear without restart; 0 never'
  }),
  CHAIN_GRPC_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 300_000,
    default: 10_000,
    description: 'Deadline of one query, failover included (DeadlineExceeded → 504)'
  }),
  CHAIN_GRPC_MAX_RECEIVE_BYTES: Type.Integer({
    minimum: 1024,
    default: 64 * 1024 * 1024,
    description: 'Largest gRPC response accepted from a node (bigger ones → 429 ResourceExhausted)'
  }),
  CHAIN_HEALTH_INTERVAL_MS: Type.Integer({
    minimum: 0,
    default: 5000,
    description: 'How often every upstream is probed; 0 disables background probes'
  }),
  CHAIN_MAX_LAG_BLOCKS: Type.Integer({
    minimum: 1,
    default: 10,
    description: 'A node this many blocks behind the highest tip of the others takes no latest-height queries'
  }),
  CHAIN_NODE_EARLIEST_HEIGHTS: Type.Optional(Type.String({
    description: 'Lowest queryable height of pruning nodes, as comma-separated URL=HEIGHT pairs with the URLs of ' +
      'CHAIN_GRPC_URL (1: archive); nodes not listed are probed with GetBlockByHeight'
  })),
  CHAIN_RECONNECT_BACKOFF_MS: Type.Integer({
    minimum: 100,
    default: 2000,
    description: 'Longest wait between reconnection attempts to a node that went away'
  }),
  CHAIN_CACHE_ENABLED: Type.Boolean({
    default: true,
    description: 'Response cache and coalescing of identical in-flight queries'
  }),
  CHAIN_CACHE_SHARED: Type.Boolean({
    default: true,
    description: 'With REDIS_URL, answers are also kept in Redis and shared by every replica'
  }),
  CHAIN_CACHE_SHARED_PINNED_TTL_MS: Type.Integer({
    minimum: 1000,
    default: 86_400_000,
    description: 'How long a height-pinned answer is kept in Redis'
  }),
  CHAIN_CACHE_LATEST_TTL_MS: Type.Integer({
    minimum: 0,
    default: 2000,
    description: 'How long a latest-height answer is reused (about one block)'
  }),
  CHAIN_CACHE_MAX_ENTRIES: Type.Integer({
    minimum: 1,
    default: 10_000,
    description: 'Entries kept in the response cache (least recently used go first)'
  }),
  CHAIN_CACHE_MAX_BYTES: Type.Integer({
    minimum: 1024,
    default: 64 * 1024 * 1024,
    description: 'Bytes of JSON kept in the response cache'
  }),
  CHAIN_STREAM_POLL_MS: Type.Integer({
    minimum: 100,
    default: 1000,
    description: 'How often the block stream asks a node for its latest block while a client listens'
  }),
  CHAIN_STREAM_RESUME_BLOCKS: Type.Integer({
    minimum: 0,
    maximum: 10_000,
    default: 50,
    description: 'Recent blocks kept for stream clients resuming with Last-Event-ID'
  }),
  CHAIN_STREAM_MAX_BUFFER_BYTES: Type.Integer({
    minimum: 1024,
    default: 1024 * 1024,
    description: 'A stream client with more unsent bytes than this is disconnected (slow reader)'
  }),
  CHAIN_ROUTE_ALIASES: Type.Optional(Type.String({
    description: 'Legacy paths served as aliases: comma-separated ALIAS=TARGET pairs of path prefixes, ' +
      'e.g. /rest/ixo=/ixo or /api=/ (TARGET / aliases every route), or of whole templates, ' +
      'e.g. /ixo/collection/{id}=/ixo/claims/collection/{id}'
  })),
  CHAIN_SERVICES: Type.Optional(Type.String({
    description: 'Comma-separated proto package or service prefixes to expose (e.g. ixo.,cosmos.bank.); ' +
      'all query services when unset'
  })),
  CHAIN_METHODS_ALLOW: Type.Optional(Type.String({
    description: 'Comma-separated gRPC methods served (all when unset): full names (pkg.Service/Method), ' +
      'services, package prefixes ending in "." or prefixes ending in "*"; others answer 404'
  })),
  CHAIN_METHODS_DENY: Type.Optional(Type.String({
    description: 'Comma-separated gRPC methods never served, same forms as CHAIN_METHODS_ALLOW (deny wins); 404'
  })),
  CHAIN_API_KEYS: Type.Optional(Type.String({
    description: 'Comma-separated API keys; when set every chain route needs ' +
      'Authorization: Bearer <key> or X-API-Key: <key> (401 missing, 403 wrong)'
  })),
  CHAIN_MAX_PAGE_LIMIT: Type.Integer({
    minimum: 0,
    default: 0,
    description: 'Largest pagination.limit passed to the node; larger ones are lowered to it (0: no cap)'
  }),
  CHAIN_MAX_PARAM_LENGTH: Type.Integer({
    minimum: 100,
    maximum: 8192,
    default: 2048,
    description: 'Longest path parameter accepted (DIDs, ibc/… denoms)'
  })
})
export type Config = Static<typeof ConfigSchema>

/** Secrets shorter than this are guessable; production refuses them. */
const MIN_API_KEY_LENGTH = 16

export function splitList (value: string | undefined): string[] {
  return (value ?? '').split(',').map((item) => item.trim()).filter((item) => item !== '')
}

function refine (config: Config): string[] {
  const issues: string[] = []
  if (config.NODE_ENV === 'production' && splitList(config.CHAIN_GRPC_URL).length === 0) {
    issues.push('CHAIN_GRPC_URL is required in production (the development node is a fixture)')
  }
  const keys = splitList(config.CHAIN_API_KEYS)
  if (config.NODE_ENV === 'production' && keys.some((key) => key.length < MIN_API_KEY_LENGTH)) {
    issues.push(`CHAIN_API_KEYS: every key must be at least ${MIN_API_KEY_LENGTH} characters in production`)
  }
  if ((config.CHAIN_GRPC_CLIENT_CERT_FILE === undefined) !== (config.CHAIN_GRPC_CLIENT_KEY_FILE === undefined)) {
    issues.push('CHAIN_GRPC_CLIENT_CERT_FILE and CHAIN_GRPC_CLIENT_KEY_FILE go together')
  }
  const urls = new Set(upstreamUrls(config))
  for (const entry of splitList(config.CHAIN_NODE_EARLIEST_HEIGHTS)) {
    const [url, height] = entry.split('=')
    if (url === undefined || !urls.has(url) || !/^[1-9]\d{0,15}$/.test(height ?? '')) {
      issues.push('CHAIN_NODE_EARLIEST_HEIGHTS: entries must look like URL=HEIGHT with a URL of CHAIN_GRPC_URL')
    }
  }
  for (const entry of splitList(config.CHAIN_ROUTE_ALIASES)) {
    if (!/^\/[^=\s]*=\/[^=\s]*$/.test(entry)) issues.push('CHAIN_ROUTE_ALIASES: entries must look like /alias=/target')
    const [alias = '', target = ''] = entry.split('=')
    const names = (template: string) => [...template.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]).sort().join(',')
    if (names(alias) !== names(target)) {
      issues.push(`CHAIN_ROUTE_ALIASES: ${entry} must bind the same variables on both sides`)
    }
  }
  return issues
}

export const loadConfig = (env: Record<string, string | undefined> = process.env): Config =>
  load(ConfigSchema, env, refine)

/** Configured lowest heights per node URL. */
export function earliestHeights (config: Config): Map<string, number> {
  return new Map(splitList(config.CHAIN_NODE_EARLIEST_HEIGHTS).map((entry) => {
    const [url, height] = entry.split('=') as [string, string]
    return [url, Number(height)]
  }))
}

function readPem (name: string, file: string | undefined): Buffer | undefined {
  if (file === undefined) return undefined
  try {
    return readFileSync(file)
  } catch (error) {
    throw new Error(`${name}: cannot read ${file}: ${(error as Error).message}`)
  }
}

/** TLS material for the nodes, read from the configured files (start-up fails on an unreadable one). */
export function upstreamTls (config: Config) {
  return {
    ca: readPem('CHAIN_GRPC_CA_FILE', config.CHAIN_GRPC_CA_FILE),
    cert: readPem('CHAIN_GRPC_CLIENT_CERT_FILE', config.CHAIN_GRPC_CLIENT_CERT_FILE),
    key: readPem('CHAIN_GRPC_CLIENT_KEY_FILE', config.CHAIN_GRPC_CLIENT_KEY_FILE)
  }
}

/** Metadata sent with every node call. */
export function upstreamMetadata (config: Config): Array<[string, string]> {
  const key = config.CHAIN_GRPC_API_KEY
  return key !== undefined && key !== '' ? [[config.CHAIN_GRPC_API_KEY_HEADER, key]] : []
}

/** The upstream list, with the development node as default outside production. */
export function upstreamUrls (config: Config): string[] {
  const urls = splitList(config.CHAIN_GRPC_URL)
  return urls.length > 0 ? urls : [DEV_NODE_URL]
}
