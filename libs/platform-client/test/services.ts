import { randomBytes } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { App } from '@impact/service-kit'
import { buildApp as buildDomainApi } from '@impact/domain-api'
import { loadConfig as loadDomainApiConfig } from '@impact/domain-api/config'
import { buildApp as buildGateway } from '@impact/chain-rest-gateway'
import { loadConfig as loadGatewayConfig } from '@impact/chain-rest-gateway/config'
import { startDevNode } from '@impact/chain-rest-gateway/dev-node'
import { createTestDatabase } from '@impact/persistence/testing'
import { freshIdentity } from '@impact/service-kit/testing'

export const ADMIN_KEY = `admin_${randomBytes(24).toString('base64url')}`
export const PROTOCOL = 'did:ixo:protocol/clean-cooking'
export const ENTITY_1 = 'did:ixo:entity:0000000000000000000000000000e001'

async function listen (app: App): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 })
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
}

/** A request domain-api received, as the client sent it. */
export interface Seen { method: string, url: string, authorization: string | undefined }

/**
 * domain-api on loopback with its own identity and an isolated database (PGlite in memory, or a
 * fresh database on DATABASE_URL), REDIS_URL passed through in the servers pass.
 */
export async function startDomainApi () {
  const database = await createTestDatabase()
  const identity = await freshIdentity()
  const redis = process.env.REDIS_URL
  const app = await buildDomainApi(loadDomainApiConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DOMAIN_API_ADMIN_KEY: ADMIN_KEY,
    DOMAIN_API_PRIVATE_KEY: identity.key,
    VERIFICATION_SWEEP_INTERVAL_SECONDS: '0',
    RATE_LIMIT_MAX: '1000000',
    RATE_LIMIT_AUTH_FAILURES_MAX: '1000000',
    RATE_LIMIT_PRINCIPAL_MAX: '1000000',
    ...(redis !== undefined && redis !== '' ? { REDIS_URL: redis } : {}),
    ...database.env
  }))
  const seen: Seen[] = []
  app.addHook('onRequest', async (request) => {
    seen.push({ method: request.method, url: request.url, authorization: request.headers.authorization })
  })
  const url = await listen(app)
  return {
    url,
    did: identity.did,
    seen,
    /** Grants roles to an account as the bootstrap admin would. */
    async grant (account: string, roles: string[]) {
      const res = await fetch(`${url}/v1/accounts/${account}/roles`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ roles })
      })
      if (res.status !== 200) throw new Error(`granting roles failed: ${await res.text()}`)
    },
    async close () {
      await app.close()
      await database.drop()
    }
  }
}

/** The chain REST gateway on loopback in front of its development node. */
export async function startChain (env: Record<string, string> = {}) {
  const node = await startDevNode({ blockMs: 0 })
  const app = await buildGateway(loadGatewayConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    CHAIN_HEALTH_INTERVAL_MS: '0',
    CHAIN_GRPC_URL: node.url,
    ...env
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

/** A loopback server that accepts requests and never answers them. */
export async function startSilentServer () {
  const server: Server = createServer(() => {})
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close () {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => { resolve() }))
    }
  }
}
