import { join } from 'node:path'

/** `portEnv` moves one process (`DOMAIN_API_PORT=4001 npm start`); a plain `PORT` would move all of them. */
export interface PlatformProcess {
  name: string
  entry: string
  port: number
  portEnv: string
  probe?: string
  /** The variable under which the other apps get this one's base URL. */
  urlEnv?: PeerUrlEnv
  /** A development fixture gets no base URLs of the apps. */
  fixture?: true
  enabled?: (env: NodeJS.ProcessEnv) => boolean
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
  // The gateway's upstream unless CHAIN_GRPC_URL names a real node; gRPC only, so no probe.
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

/** A wildcard bind is reached over loopback. */
export function connectHost (env: NodeJS.ProcessEnv): string {
  const host = env.HOST ?? ''
  if (host === '' || host === '0.0.0.0' || host === '::') return '127.0.0.1'
  return host.includes(':') ? `[${host}]` : host
}

export const baseUrl = (proc: PlatformProcess, env: NodeJS.ProcessEnv): string =>
  `http://${connectHost(env)}:${portOf(proc, env)}`

export function platformDataDir (env: NodeJS.ProcessEnv): string {
  const dir = env.DATA_DIR
  return dir === undefined || dir.trim() === '' ? '.data' : dir.trim()
}

export function dataDirOf (name: string, env: NodeJS.ProcessEnv): string {
  const dir = platformDataDir(env)
  return dir === MEMORY_DATA_DIR ? dir : join(dir, name)
}

export function peerUrls (env: NodeJS.ProcessEnv): Partial<Record<PeerUrlEnv, string>> {
  return Object.fromEntries(enabledProcesses(env)
    .filter((proc) => proc.urlEnv !== undefined)
    .map((proc) => [proc.urlEnv, baseUrl(proc, env)]))
}

/** Identity keys set in the platform's environment pass through and win over the ones apps generate. */
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

export const programmeFile = (env: NodeJS.ProcessEnv): string => join(platformDataDir(env), 'programme.json')

export const ussdProgrammesFile = (env: NodeJS.ProcessEnv): string => join(platformDataDir(env), 'ussd-programmes.json')

/** An operator's own USSD_PROGRAMMES_FILE passes through unchanged. */
export function devUssdProgrammesFile (env: NodeJS.ProcessEnv): string | undefined {
  const own = env.USSD_PROGRAMMES_FILE
  if ((own !== undefined && own !== '') || seedSkipReason(env) !== undefined) return undefined
  return ussdProgrammesFile(env)
}

/** The seed is a development convenience, and needs files an in-memory platform lacks. */
export function seedSkipReason (env: NodeJS.ProcessEnv): string | undefined {
  const nodeEnv = env.NODE_ENV ?? ''
  if (nodeEnv !== '' && nodeEnv !== 'development') return `NODE_ENV=${nodeEnv}`
  if (/^(false|0|no|off)$/i.test(env.SEED?.trim() ?? '')) return 'SEED=false'
  if (platformDataDir(env) === MEMORY_DATA_DIR) return 'DATA_DIR is in memory (no admin key file, no programme file)'
  return undefined
}
