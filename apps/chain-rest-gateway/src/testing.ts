import { randomUUID } from 'node:crypto'
import { buildApp } from './app.ts'
import { loadConfig } from './config.ts'
import { startDevNode } from './dev-node/node.ts'

export type LoopbackChain = Awaited<ReturnType<typeof startChain>>

/**
 * The gateway listening on loopback in front of its development node, for other packages' tests; `env`
 * adds settings (e.g. `CHAIN_API_KEYS`).
 */
export async function startChain (env: Record<string, string> = {}) {
  const node = await startDevNode({ blockMs: 0 })
  const app = await buildApp(loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    CHAIN_HEALTH_INTERVAL_MS: '0',
    // Tests share 127.0.0.1 (and Redis counters across files); the limit test sets its own.
    RATE_LIMIT_MAX: '1000000',
    CHAIN_GRPC_URL: node.url,
    ...env
    // Its own Redis namespace (REDIS_URL): no rate-limit counters or answers of other tests.
  }), { statePrefix: `chain-rest-gateway-test:${randomUUID()}:` }).catch(async (err: unknown) => {
    await node.close()
    throw err
  })
  const url = await app.listen({ host: '127.0.0.1', port: 0 })
  return {
    url,
    async close () {
      await app.close()
      await node.close()
    }
  }
}
