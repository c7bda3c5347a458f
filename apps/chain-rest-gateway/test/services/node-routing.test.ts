import { describe, expect, it, onTestFinished } from 'vitest'
import { until } from '@impact/service-kit/testing'
import type { DevNode } from '../../src/dev-node/node.ts'
import { BLOCK_BY_HEIGHT_PATH, LATEST_BLOCK_PATH } from '../../src/services/block-height.ts'
import { buildGateway, startNode, type Gateway } from '../helper.ts'

const LIST = '/ixo.entity.v1beta1.Query/EntityList'
const PARAMS = '/ixo.claims.v1beta1.Query/Params'

async function twoNodes (
  first: Parameters<typeof startNode>[0],
  second: Parameters<typeof startNode>[0],
  env: (a: DevNode, b: DevNode) => Record<string, string> = () => ({})
) {
  const a = await startNode(first)
  const b = await startNode(second)
  const app = await buildGateway({
    CHAIN_GRPC_URL: `${a.url},${b.url}`,
    CHAIN_CACHE_ENABLED: 'false',
    ...env(a, b)
  })
  onTestFinished(async () => {
    await app.close()
    await a.close()
    await b.close()
  })
  return { a, b, app }
}

const health = async (app: Gateway) => (await app.inject({ method: 'GET', url: '/health' })).json()
const pinned = async (app: Gateway, height: number) =>
  await app.inject({ method: 'GET', url: '/ixo/entity', headers: { 'x-cosmos-block-height': String(height) } })
const times = async (n: number, run: () => Promise<unknown>) => { for (let i = 0; i < n; i++) await run() }
const calls = (node: DevNode, path: string) => node.calls.get(path) ?? 0

describe('stale nodes', () => {
  it('watches heights with GetLatestBlock, drops a lagging node and balances once it caught up', async () => {
    const { a: lagging, b: current, app } = await twoNodes(
      { startHeight: 100 },
      { startHeight: 200 },
      () => ({ CHAIN_HEALTH_INTERVAL_MS: '100', CHAIN_MAX_LAG_BLOCKS: '5' })
    )
    await until(async () => (await health(app))['upstream #1'] === 'lagging', { timeout: 5000, interval: 50 })
    expect(await health(app)).toMatchObject({ status: 'ok', height: '200', 'upstream #2': 'connected' })
    expect(calls(current, LATEST_BLOCK_PATH)).toBeGreaterThan(0)

    await times(10, async () => {
      const res = await app.inject({ method: 'GET', url: '/ixo/claims/params' })
      expect(res.headers['x-cosmos-block-height']).toBe('200')
    })
    expect(calls(lagging, PARAMS)).toBe(0)
    expect(calls(current, PARAMS)).toBe(10)

    lagging.setHeight(197)
    await until(async () => (await health(app))['upstream #1'] === 'connected', { timeout: 5000, interval: 50 })
    await times(10, async () => await app.inject({ method: 'GET', url: '/ixo/claims/params' }))
    expect(calls(lagging, PARAMS)).toBe(5)
    expect(calls(current, PARAMS)).toBe(15)
  })
})

describe('archive routing of x-cosmos-block-height', () => {
  it('sends heights below a pruned node\'s lowest block (GetBlockByHeight) to the archive node', async () => {
    const { a: pruned, b: archive, app } = await twoNodes(
      { startHeight: 200, earliestHeight: 150 },
      { startHeight: 200 },
      () => ({ CHAIN_HEALTH_INTERVAL_MS: '100' })
    )
    // A second probe of the pruned node means the first round's answers were read.
    await until(() => calls(pruned, BLOCK_BY_HEIGHT_PATH) > 1 && calls(archive, BLOCK_BY_HEIGHT_PATH) > 0, {
      timeout: 5000,
      interval: 20
    })
    await times(6, async () => {
      const res = await pinned(app, 20)
      expect(res.statusCode).toBe(200)
      expect(res.headers['x-cosmos-block-height']).toBe('20')
      expect(res.json().entities).toHaveLength(2)
    })
    expect(calls(pruned, LIST)).toBe(0)
    expect(calls(archive, LIST)).toBe(6)
    await times(6, async () => expect((await pinned(app, 180)).statusCode).toBe(200))
    expect(calls(pruned, LIST)).toBe(3)
  })

  it('learns a pruned height from the node\'s answer and retries on another node', async () => {
    // The block store still has every block, but the state below 150 is pruned: only a query shows it.
    const { a: pruned, b: archive, app } = await twoNodes(
      { startHeight: 200, earliestHeight: 150, blockBase: 1 },
      { startHeight: 200 }
    )
    await times(6, async () => expect((await pinned(app, 20)).json().entities).toHaveLength(2))
    expect(calls(pruned, LIST)).toBe(1)
    expect(calls(archive, LIST)).toBe(6)
  })

  it('uses a configured lowest height, and passes the node\'s error on when no node holds the height', async () => {
    const { a: pruned, b: other, app } = await twoNodes(
      { startHeight: 200, earliestHeight: 150 },
      { startHeight: 200, earliestHeight: 120 },
      (a, b) => ({ CHAIN_NODE_EARLIEST_HEIGHTS: `${a.url}=150,${b.url}=120` })
    )
    await times(4, async () => expect((await pinned(app, 130)).statusCode).toBe(200))
    expect(calls(pruned, LIST)).toBe(0)
    expect(calls(other, LIST)).toBe(4)

    const res = await pinned(app, 20)
    expect(res.statusCode).toBe(500)
    expect(res.json()).toMatchObject({ code: 2, details: [] })
    expect(res.json().message).toMatch(/^failed to load state at height 20/)
  })
})
