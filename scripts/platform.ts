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
}

export const platform: PlatformProcess[] = [
  { name: 'ussd-gateway', entry: 'apps/ussd-gateway/dist/server.js', port: 3000, portEnv: 'USSD_GATEWAY_PORT', probe: '/health/live' },
  { name: 'domain-api', entry: 'apps/domain-api/dist/server.js', port: 3001, portEnv: 'DOMAIN_API_PORT', probe: '/health/live' },
  { name: 'oracle-runtime', entry: 'apps/oracle-runtime/dist/server.js', port: 3002, portEnv: 'ORACLE_RUNTIME_PORT', probe: '/health/live' },
  // Development fixture (sample data), the gateway's default upstream outside production; gRPC only, so no probe.
  { name: 'chain-dev-node', entry: 'apps/chain-rest-gateway/dist/dev-node/server.js', port: 9190, portEnv: 'CHAIN_DEV_NODE_PORT' },
  { name: 'chain-rest-gateway', entry: 'apps/chain-rest-gateway/dist/server.js', port: 3003, portEnv: 'CHAIN_REST_GATEWAY_PORT', probe: '/health/live' }
]
