import { describe, expect, it, onTestFinished } from 'vitest'
import { until } from '@impact/service-kit/testing'
import type { DevNode } from '../../src/dev-node/node.ts'
import { buildGateway, nodeAndGateway, startNode, vacantPort, type Gateway } from '../helper.ts'

const RETRY = { CHAIN_GRPC_TIMEOUT_MS: '500', CHAIN_REFLECTION_RETRY_MAX_MS: '200' }

async function gatewayBeforeNode (env: Record<string, string>) {
  const port = await vacantPort()
  const app = await buildGateway({ CHAIN_GRPC_URL: `127.0.0.1:${port}`, ...RETRY, ...env })
  const nodes: DevNode[] = []
  onTestFinished(async () => {
    await app.close()
    for (const node of nodes) await node.close()
  })
  return {
    app,
    start: async (options: Parameters<typeof startNode>[0] = {}) => {
      const node = await startNode({ port, ...options })
      nodes.push(node)
      return node
    }
  }
}

const landing = async (app: Gateway) => (await app.inject({ method: 'GET', url: '/' })).json()
const status = async (app: Gateway, url: string) => (await app.inject({ method: 'GET', url })).statusCode
const docPaths = async (app: Gateway) =>
  Object.keys((await app.inject({ method: 'GET', url: '/docs/json' })).json().paths)

describe('reflection fallback and recovery', () => {
  it('serves the shipped set while the node is away, then switches to its reflection without restart', async () => {
    const { app, start } = await gatewayBeforeNode({})
    expect(await landing(app)).toMatchObject({ descriptors: 'bundled', routes: 27 })
    const health = await app.inject({ method: 'GET', url: '/health' })
    expect(health.statusCode).toBe(503)
    expect(health.json()).toMatchObject({ descriptors: 'bundled', routes: '27', reflection: 'retrying' })

    await start({ omitServices: ['ixo.token.v1beta1.Query'] })
    await until(async () => (await landing(app)).descriptors === 'reflection', { timeout: 5000, interval: 50 })
    expect(await landing(app)).toMatchObject({ routes: 23 })
    expect(await status(app, '/ixo/token/params')).toBe(404)
    expect(await status(app, '/ixo/claims/params')).toBe(200)
    const ready = await app.inject({ method: 'GET', url: '/health' })
    expect(ready.statusCode).toBe(200)
    expect(ready.json()).toMatchObject({
      status: 'ok',
      descriptors: 'reflection',
      routes: '23',
      reflection: 'connected'
    })
    const paths = await docPaths(app)
    expect(paths).toContain('/ixo/claims/params')
    expect(paths).not.toContain('/ixo/token/params')
  })

  it('keeps retrying a node without a reflection service, serving the shipped set (degraded, ready)', async () => {
    const { app } = await nodeAndGateway({ reflection: false }, RETRY)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(await status(app, '/ixo/entity/params')).toBe(200)
    const health = await app.inject({ method: 'GET', url: '/health' })
    expect(health.statusCode).toBe(200)
    expect(health.json()).toMatchObject({ status: 'degraded', descriptors: 'bundled', reflection: 'retrying' })
  })
})

describe('CHAIN_DESCRIPTOR_SOURCE=reflection', () => {
  it('answers 503 not-ready until the node hands out its descriptors, then serves', async () => {
    const { app, start } = await gatewayBeforeNode({ CHAIN_DESCRIPTOR_SOURCE: 'reflection' })
    const early = await app.inject({ method: 'GET', url: '/ixo/entity/params' })
    expect(early.statusCode).toBe(503)
    expect(early.json()).toEqual({
      code: 14,
      message: 'chain routes are not loaded yet: waiting for the node\'s reflection service',
      details: []
    })
    expect((await app.inject({ method: 'POST', url: '/ixo/entity/params' })).statusCode).toBe(503)
    const health = await app.inject({ method: 'GET', url: '/health' })
    expect(health.statusCode).toBe(503)
    expect(health.json()).toMatchObject({ descriptors: 'none', routes: '0', reflection: 'waiting' })
    expect(await landing(app)).toMatchObject({ descriptors: 'none', routes: 0 })

    await start()
    await until(async () => await status(app, '/ixo/entity/params') === 200, { timeout: 5000, interval: 50 })
    expect((await app.inject({ method: 'GET', url: '/health' })).json()).toMatchObject({
      status: 'ok',
      descriptors: 'reflection',
      routes: '27'
    })
  })

  it('stays not ready against a node without reflection, never serving the shipped set', async () => {
    const { app } = await nodeAndGateway({ reflection: false }, { CHAIN_DESCRIPTOR_SOURCE: 'reflection', ...RETRY })
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(await status(app, '/ixo/entity/params')).toBe(503)
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(503)
  })
})

describe('chain upgrades', () => {
  const OLDER = {
    withhold: {
      methods: ['/ixo.claims.v1beta1.Query/CollectionMemberList'],
      fields: ['ixo.claims.v1beta1.Collection.disputes_open']
    }
  }

  it('re-reads descriptors and swaps routes and fields in while serving throughout', async () => {
    const { node, app } = await nodeAndGateway(OLDER, {
      CHAIN_DESCRIPTOR_REFRESH_MS: '150',
      CHAIN_CACHE_LATEST_TTL_MS: '60000'
    })
    expect(await landing(app)).toMatchObject({ descriptors: 'reflection', routes: 26 })
    expect(await status(app, '/ixo/claims/collection/1/members')).toBe(404)
    const before = (await app.inject({ method: 'GET', url: '/ixo/claims/collection/1' })).json()
    expect(before.collection.id).toBe('1')
    expect(before.collection).not.toHaveProperty('disputes_open')

    node.upgrade()
    const answers: number[] = []
    await until(async () => {
      answers.push(await status(app, '/ixo/claims/params'))
      return (await landing(app)).routes === 27
    }, { timeout: 5000, interval: 20 })
    expect(answers.every((code) => code === 200)).toBe(true)

    const members = await app.inject({ method: 'GET', url: '/ixo/claims/collection/1/members' })
    expect(members.statusCode).toBe(200)
    expect(members.json().member_budgets).toHaveLength(1)
    const after = (await app.inject({ method: 'GET', url: '/ixo/claims/collection/1' })).json()
    expect(after.collection).toHaveProperty('disputes_open')
    expect(await docPaths(app)).toContain('/ixo/claims/collection/{collectionId}/members')
  })
})
