import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import type { App } from '@impact/service-kit'
import { buildApp as buildDomainApi } from '@impact/domain-api'
import { loadConfig as loadDomainApiConfig } from '@impact/domain-api/config'
import { buildApp as buildGateway } from '@impact/chain-rest-gateway'
import { loadConfig as loadGatewayConfig } from '@impact/chain-rest-gateway/config'
import { startDevNode } from '@impact/chain-rest-gateway/dev-node'
import { createTestDatabase } from '@impact/persistence/testing'
import { freshIdentity } from '@impact/service-kit/testing'

/** A protocol DID the registry does not hold (it accepts such classes: they may live on chain). */
export const PROTOCOL = 'did:ixo:protocol/clean-cooking'
/** An entity of the chain gateway's development node. */
export const CHAIN_ENTITY = 'did:ixo:entity:0000000000000000000000000000e001'

async function listen (app: App): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 })
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
}

/**
 * domain-api on loopback with a fresh identity and an isolated database (PGlite in memory, or a fresh
 * database on DATABASE_URL), REDIS_URL passed through in the servers pass. `requests` counts what it
 * was sent besides `GET /` (its DID).
 */
export async function startDomainApi () {
  const database = await createTestDatabase()
  const identity = await freshIdentity()
  const adminKey = `admin_${randomBytes(24).toString('base64url')}`
  const redis = process.env.REDIS_URL
  const app = await buildDomainApi(loadDomainApiConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DOMAIN_API_ADMIN_KEY: adminKey,
    DOMAIN_API_PRIVATE_KEY: identity.key,
    VERIFICATION_SWEEP_INTERVAL_SECONDS: '0',
    RATE_LIMIT_MAX: '1000000',
    RATE_LIMIT_AUTH_FAILURES_MAX: '1000000',
    RATE_LIMIT_PRINCIPAL_MAX: '1000000',
    ...(redis !== undefined && redis !== '' ? { REDIS_URL: redis } : {}),
    ...database.env
  }))
  let requests = 0
  app.addHook('onRequest', async (request) => { if (request.url !== '/') requests++ })
  const url = await listen(app)
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${adminKey}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {})
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {})
    })
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`)
    return await res.json() as any
  }
  return {
    url,
    did: identity.did,
    requests: () => requests,
    /** A call with the bootstrap admin key (what the registry holds, whoever asks). */
    admin,
    async close () {
      await app.close()
      await database.drop()
    }
  }
}

/** The chain REST gateway on loopback in front of its development node. */
export async function startChain () {
  const node = await startDevNode({ blockMs: 0 })
  const app = await buildGateway(loadGatewayConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    CHAIN_HEALTH_INTERVAL_MS: '0',
    CHAIN_GRPC_URL: node.url
  }))
  const url = await listen(app)
  return {
    url,
    async close () {
      await app.close()
      await node.close()
    }
  }
}
