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
  /** Run only when this holds for the environment (default: always). */
  enabled?: (env: NodeJS.ProcessEnv) => boolean
  /** Extra environment for the process, derived from the platform's environment. */
  env?: (env: NodeJS.ProcessEnv) => Record<string, string>
}

const devNodePort = (env: NodeJS.ProcessEnv) => env.CHAIN_DEV_NODE_PORT ?? '9190'
const realChainNode = (env: NodeJS.ProcessEnv) => env.CHAIN_GRPC_URL !== undefined && env.CHAIN_GRPC_URL !== ''

export const platform: PlatformProcess[] = [
  {
    name: 'ussd-gateway',
    entry: 'apps/ussd-gateway/dist/server.js',
    port: 3000,
    portEnv: 'USSD_GATEWAY_PORT',
    probe: '/health/live'
  },
  {
    name: 'domain-api',
    entry: 'apps/domain-api/dist/server.js',
    port: 3001,
    portEnv: 'DOMAIN_API_PORT',
    probe: '/health/live'
  },
  {
    name: 'oracle-runtime',
    entry: 'apps/oracle-runtime/dist/server.js',
    port: 3002,
    portEnv: 'ORACLE_RUNTIME_PORT',
    probe: '/health/live'
  },
  // Development fixture (sample data), the gateway's upstream unless CHAIN_GRPC_URL names a real node.
  // gRPC only, so no probe.
  {
    name: 'chain-dev-node',
    entry: 'apps/chain-rest-gateway/dist/dev-node/server.js',
    port: 9190,
    portEnv: 'CHAIN_DEV_NODE_PORT',
    enabled: (env) => !realChainNode(env)
  },
  {
    name: 'chain-rest-gateway',
    entry: 'apps/chain-rest-gateway/dist/server.js',
    port: 3003,
    portEnv: 'CHAIN_REST_GATEWAY_PORT',
    probe: '/health/live',
    env: (env): Record<string, string> =>
      realChainNode(env) ? {} : { CHAIN_GRPC_URL: `127.0.0.1:${devNodePort(env)}` }
  }
]
