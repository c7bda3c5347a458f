import { join } from 'node:path'

/**
 * The processes `npm start` runs, in start order, with their default ports. `portEnv` lets one
 * process be moved (`DOMAIN_API_PORT=4001 npm start`); a plain `PORT` would move all of them.
 */
export interface PlatformProcess {
  name: string
  entry: string
  port: number
  portEnv: string
  /** Path probed to decide that the process is up (HTTP apps only). */
  probe?: string
  /** The variable under which the other apps get this one's base URL. */
  urlEnv?: PeerUrlEnv
  /** A development fixture, not an app: it gets no base URLs of the apps. */
  fixture?: true
  /** Run only when this holds for the environment (default: always). */
  enabled?: (env: NodeJS.ProcessEnv) => boolean
  /** Extra environment for the process, derived from the platform's environment. */
  env?: (env: NodeJS.ProcessEnv) => Record<string, string>
}

export type PeerUrlEnv = 'DOMAIN_API_URL' | 'ORACLE_URL' | 'CHAIN_REST_URL'

const devNodePort = (env: NodeJS.ProcessEnv) => env.CHAIN_DEV_NODE_PORT ?? '9190'
const realChainNode = (env: NodeJS.ProcessEnv) => env.CHAIN_GRPC_URL !== undefined && env.CHAIN_GRPC_URL !== ''

export const platform: PlatformProcess[] = [
  {
    name: 'ussd-gateway',
    entry: 'apps/ussd-gateway/dist/server.js',
    port: 3000,
    portEnv: 'USSD_GATEWAY_PORT',
    probe: '/health/live',
    env: (env): Record<string, string> => {
      const file = devUssdProgrammesFile(env)
      return file !== undefined ? { USSD_PROGRAMMES_FILE: file } : {}
    }
  },
  {
    name: 'domain-api',
    entry: 'apps/domain-api/dist/server.js',
    port: 3001,
    portEnv: 'DOMAIN_API_PORT',
    probe: '/health/live',
    urlEnv: 'DOMAIN_API_URL'
  },
  {
    name: 'oracle-runtime',
    entry: 'apps/oracle-runtime/dist/server.js',
    port: 3002,
    portEnv: 'ORACLE_RUNTIME_PORT',
    probe: '/health/live',
    urlEnv: 'ORACLE_URL'
  },
  // Development fixture (sample data), the gateway's upstream unless CHAIN_GRPC_URL names a real node.
  // gRPC only, so no probe.
  {
    name: 'chain-dev-node',
    entry: 'apps/chain-rest-gateway/dist/dev-node/server.js',
    port: 9190,
    portEnv: 'CHAIN_DEV_NODE_PORT',
    fixture: true,
    enabled: (env) => !realChainNode(env)
  },
  {
    name: 'chain-rest-gateway',
    entry: 'apps/chain-rest-gateway/dist/server.js',
    port: 3003,
    portEnv: 'CHAIN_REST_GATEWAY_PORT',
    probe: '/health/live',
    urlEnv: 'CHAIN_REST_URL',
    env: (env): Record<string, string> =>
      realChainNode(env) ? {} : { CHAIN_GRPC_URL: `127.0.0.1:${devNodePort(env)}` }
  }
]

const MEMORY_DATA_DIR = 'memory://'

export const enabledProcesses = (env: NodeJS.ProcessEnv): PlatformProcess[] =>
  platform.filter((proc) => proc.enabled?.(env) ?? true)

export function portOf (proc: PlatformProcess, env: NodeJS.ProcessEnv): number {
  const value = env[proc.portEnv]
  return value !== undefined && value !== '' ? Number(value) : proc.port
}

/** Where the apps are reached on this machine: HOST, with a wildcard bind reached over loopback. */
export function connectHost (env: NodeJS.ProcessEnv): string {
  const host = env.HOST ?? ''
  if (host === '' || host === '0.0.0.0' || host === '::') return '127.0.0.1'
  return host.includes(':') ? `[${host}]` : host
}

export const baseUrl = (proc: PlatformProcess, env: NodeJS.ProcessEnv): string =>
  `http://${connectHost(env)}:${portOf(proc, env)}`

/**
 * The platform's data directory (DATA_DIR, default `.data`): each process keeps its files (embedded
 * database, generated development keys) in a folder of its own name inside it, the seed its output.
 */
export function platformDataDir (env: NodeJS.ProcessEnv): string {
  const dir = env.DATA_DIR
  return dir === undefined || dir.trim() === '' ? '.data' : dir.trim()
}

/** DATA_DIR of one process; an in-memory platform keeps every process in memory. */
export function dataDirOf (name: string, env: NodeJS.ProcessEnv): string {
  const dir = platformDataDir(env)
  return dir === MEMORY_DATA_DIR ? dir : join(dir, name)
}

/** The base URL of every app the platform runs that others call, by its variable. */
export function peerUrls (env: NodeJS.ProcessEnv): Partial<Record<PeerUrlEnv, string>> {
  return Object.fromEntries(enabledProcesses(env)
    .filter((proc) => proc.urlEnv !== undefined)
    .map((proc) => [proc.urlEnv, baseUrl(proc, env)]))
}

/**
 * The environment one process starts with: the platform's own (less the shared PORT and DATA_DIR),
 * its port and data directory, and for an app the base URLs of the other apps. An identity key
 * (DOMAIN_API_PRIVATE_KEY, ORACLE_PRIVATE_KEY) set in the platform's environment passes through and
 * wins; without one each app generates its key once into its data directory.
 */
export function processEnv (
  proc: PlatformProcess,
  env: NodeJS.ProcessEnv,
  options: { pretty?: boolean } = {}
): NodeJS.ProcessEnv {
  const { PORT: _port, DATA_DIR: _dataDir, ...inherited } = env
  const peers = proc.fixture === true
    ? {}
    : Object.fromEntries(Object.entries(peerUrls(env)).filter(([key]) => key !== proc.urlEnv))
  return {
    LOG_PRETTY: options.pretty === true ? 'true' : 'false',
    ...inherited,
    ...proc.env?.(env),
    ...peers,
    PORT: String(portOf(proc, env)),
    DATA_DIR: dataDirOf(proc.name, env)
  }
}

/** Where the development seed writes the DIDs it made (read by the USSD programme file). */
export const programmeFile = (env: NodeJS.ProcessEnv): string => join(platformDataDir(env), 'programme.json')

/** The USSD gateway's programme file the development seed writes (USSD_PROGRAMMES_FILE). */
export const ussdProgrammesFile = (env: NodeJS.ProcessEnv): string => join(platformDataDir(env), 'ussd-programmes.json')

/**
 * The development programme file the gateway gets, when the seed runs and USSD_PROGRAMMES_FILE names no
 * file of the operator's own (that one passes through unchanged).
 */
export function devUssdProgrammesFile (env: NodeJS.ProcessEnv): string | undefined {
  const own = env.USSD_PROGRAMMES_FILE
  if ((own !== undefined && own !== '') || seedSkipReason(env) !== undefined) return undefined
  return ussdProgrammesFile(env)
}

/**
 * Why `npm start` does not seed, or undefined when it does: the seed is a development convenience,
 * never run in production (or test), skipped with SEED=false, and needs files an in-memory platform lacks.
 */
export function seedSkipReason (env: NodeJS.ProcessEnv): string | undefined {
  const nodeEnv = env.NODE_ENV ?? ''
  if (nodeEnv !== '' && nodeEnv !== 'development') return `NODE_ENV=${nodeEnv}`
  if (/^(false|0|no|off)$/i.test(env.SEED?.trim() ?? '')) return 'SEED=false'
  if (platformDataDir(env) === MEMORY_DATA_DIR) return 'DATA_DIR is in memory (no admin key file, no programme file)'
  return undefined
}
