import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError } from '@impact/service-kit'
import { freshIdentity } from '@impact/service-kit/testing'
import { loadConfig, loadMigrationConfig } from '../../../src/config.ts'
import { createHarness, type Harness } from '../../support/harness.ts'
import { startLoopbackLlm } from '../../support/loopback-llm.ts'

const cleanup: Array<() => Promise<void>> = []
afterEach(async () => { for (const step of cleanup.splice(0).reverse()) await step() })
const harness = async (env: Record<string, string>) => {
  const h: Harness = await createHarness(env)
  cleanup.push(async () => { await h.close() })
  return h
}
const REQUIRED = /LLM_BASE_URL is required in production: .+, or set LLM_PROVIDER=offline to run the built-in offline/
const health = async (h: Harness) => await h.app.inject({ method: 'GET', url: '/health' })

// Apps are built inside these tests: a loaded machine needs more than the default 5 s for one.
describe('choosing the model provider', { timeout: 20_000 }, () => {
  let production: Record<string, string>
  beforeAll(async () => {
    production = { NODE_ENV: 'production', ORACLE_PRIVATE_KEY: (await freshIdentity()).key }
  })

  it('refuses to start in production without LLM_BASE_URL unless the offline agent is chosen explicitly', () => {
    expect(() => loadConfig(production)).toThrow(ConfigError)
    expect(() => loadConfig(production)).toThrow(REQUIRED)
    expect(loadConfig({ ...production, LLM_PROVIDER: 'offline' }).LLM_PROVIDER).toBe('offline')
    const url = 'https://llm.example.org/v1'
    expect(loadConfig({ ...production, LLM_BASE_URL: url }).LLM_BASE_URL).toBe(url)
    expect(loadConfig({ NODE_ENV: 'development' }).LLM_PROVIDER).toBeUndefined()
    // The migration job serves nothing: it needs no model provider.
    expect(() => loadMigrationConfig(production)).not.toThrow()
  })

  it('refuses a provider that contradicts LLM_BASE_URL, and an unknown one', () => {
    expect(() => loadConfig({ LLM_PROVIDER: 'offline', LLM_BASE_URL: 'https://llm.example.org/v1' }))
      .toThrow(/LLM_PROVIDER=offline and LLM_BASE_URL contradict each other/)
    expect(() => loadConfig({ LLM_PROVIDER: 'openai' })).toThrow(/LLM_PROVIDER=openai needs LLM_BASE_URL/)
    expect(() => loadConfig({ LLM_PROVIDER: 'anthropic' })).toThrow(/LLM_PROVIDER must be one of: openai, offline/)
  })

  it('runs the offline agent in production when it is chosen, without a model provider entry in /health', async () => {
    const h = await harness({ ...production, LLM_PROVIDER: 'offline' })
    expect((await h.app.inject({ method: 'GET', url: '/models' })).json().default).toBe('offline')
    const res = await health(h)
    expect(res.statusCode).toBe(200)
    expect(res.json().status).toBe('ok')
    expect(res.json().modelProvider).toBeUndefined()
  })
})

describe('GET /health and the model provider', { timeout: 20_000 }, () => {
  it('reports the provider connected while it answers, then degraded with 200 once it is gone', async () => {
    const llm = await startLoopbackLlm()
    const h = await harness({ LLM_BASE_URL: llm.url, LLM_HEALTH_CACHE_MS: '0' })
    const up = await health(h)
    expect(up.statusCode).toBe(200)
    expect(up.json()).toMatchObject({ status: 'ok', database: 'connected', modelProvider: 'connected' })
    await llm.close()
    const down = await health(h)
    expect(down.statusCode).toBe(200)
    expect(down.json())
      .toMatchObject({ status: 'degraded', database: 'connected', modelProvider: 'disconnected' })
  })

  it('reuses one probe for LLM_HEALTH_CACHE_MS', async () => {
    const llm = await startLoopbackLlm()
    const h = await harness({ LLM_BASE_URL: llm.url, LLM_HEALTH_CACHE_MS: '600000' })
    expect((await health(h)).json().modelProvider).toBe('connected')
    await llm.close()
    expect((await health(h)).json().modelProvider).toBe('connected')
  })

  it('reports a provider that refuses the API key as unauthorized', async () => {
    const seen: Array<string | undefined> = []
    const server = createServer((req, res) => {
      seen.push(req.headers.authorization)
      res.writeHead(401).end('{"error":"bad key"}')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    cleanup.push(async () => { await new Promise((resolve) => server.close(resolve)) })
    const port = (server.address() as AddressInfo).port
    const h = await harness({ LLM_BASE_URL: `http://127.0.0.1:${port}/v1`, LLM_API_KEY: 'sk-wrong' })
    const res = await health(h)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ status: 'degraded', modelProvider: 'unauthorized' })
    expect(seen).toEqual(['Bearer sk-wrong'])
  })
})
