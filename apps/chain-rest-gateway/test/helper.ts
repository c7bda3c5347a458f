import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, onTestFinished } from 'vitest'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { startDevNode, type DevNode, type DevNodeOptions } from '../src/dev-node/node.ts'

export type Gateway = Awaited<ReturnType<typeof buildApp>>

/** A development node on a free port, closed after the test (or file, with `scope: 'file'`). */
export async function startNode (options: DevNodeOptions = {}): Promise<DevNode> {
  return await startDevNode({ blockMs: 0, ...options })
}

/** A loopback port no node listens on yet (a node can be started there later). */
export async function vacantPort (): Promise<number> {
  const node = await startDevNode({ blockMs: 0 })
  await node.close()
  return node.port
}

const redisUrl = process.env.REDIS_URL

export function gatewayConfig (env: Record<string, string> = {}) {
  return loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    CHAIN_HEALTH_INTERVAL_MS: '0',
    // Tests share 127.0.0.1 (and Redis counters across files); the limit test sets its own.
    RATE_LIMIT_MAX: '1000000',
    CHAIN_CACHE_SHARED_PINNED_TTL_MS: '60000',
    // Server mode: rate limits and the shared response cache in Redis.
    ...(redisUrl !== undefined && redisUrl !== '' ? { REDIS_URL: redisUrl } : {}),
    CHAIN_RECONNECT_BACKOFF_MS: '200',
    ...env
  })
}

/** Each gateway has its own Redis namespace (server mode): no counters or answers of other tests. */
export const testPrefix = () => `chain-rest-gateway-test:${randomUUID()}:`

export async function buildGateway (env: Record<string, string> = {}, statePrefix = testPrefix()): Promise<Gateway> {
  return await buildApp(gatewayConfig(env), { statePrefix })
}

/** Node and gateway closed when the current test ends. */
export async function nodeAndGateway (nodeOptions: DevNodeOptions = {}, env: Record<string, string> = {}) {
  const node = await startNode(nodeOptions)
  const app = await buildGateway({ CHAIN_GRPC_URL: node.url, ...env })
  onTestFinished(async () => {
    await app.close()
    await node.close()
  })
  return { node, app }
}

/** One node and gateway for the whole file: started before its first test, closed after its last. */
export function fileNodeAndGateway (env: Record<string, string> = {}, nodeOptions: DevNodeOptions = {}) {
  let node: DevNode | undefined
  let app: Gateway | undefined
  beforeAll(async () => {
    node = await startNode(nodeOptions)
    app = await buildGateway({ CHAIN_GRPC_URL: node.url, ...env })
  })
  afterAll(async () => {
    await app?.close()
    await node?.close()
  })
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the file\'s node and gateway are not started yet')
    return value
  }
  return {
    get node () { return started(node) },
    get app () { return started(app) },
    get: async (url: string) => await started(app).inject({ method: 'GET', url })
  }
}

export const ENTITY_1 = 'did:ixo:entity:0000000000000000000000000000e001'
export const ENTITY_3 = 'did:ixo:entity:0000000000000000000000000000e003'
export const ADMIN = 'ixo1dev0admin0000000000000000000000000000'
export const agent = (n: number) => `ixo1dev0agent${String(n).padStart(27, '0')}`
