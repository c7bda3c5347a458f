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
    CHAIN_GRPC_URL: node.url,
    ...env
  })).catch(async (err: unknown) => {
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
