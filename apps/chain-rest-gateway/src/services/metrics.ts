import { Counter, Gauge, Histogram, type Registry } from '@impact/service-kit'
import { GrpcCode } from '../errors.ts'

const CODE_NAMES = new Map(Object.entries(GrpcCode).map(([name, code]) => [code as number, name]))

/**
 * The gateway's own metrics. Nodes are labelled by their index in CHAIN_GRPC_URLS (the order of failover),
 * never by address: an address may carry credentials.
 */
export function createChainMetrics (
  registry: Registry,
  nodes: () => Array<{ up: boolean, latest: number | undefined }>
) {
  const registers = [registry]
  const upstream = new Histogram({
    name: 'chain_upstream_request_duration_seconds',
    help: 'gRPC queries to a chain node by node index and outcome (ok, or the gRPC code name)',
    labelNames: ['node', 'outcome'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers
  })
  const errors = new Counter({
    name: 'chain_upstream_errors_total',
    help: 'gRPC queries a chain node failed, by node index and gRPC code name',
    labelNames: ['node', 'code'] as const,
    registers
  })
  const height = new Gauge({
    name: 'chain_upstream_block_height',
    help: 'Block height a node last answered an unpinned (latest) query at; fresh only for nodes taking queries',
    labelNames: ['node'] as const,
    registers
  })
  new Gauge({ // eslint-disable-line no-new
    name: 'chain_upstream_up',
    help: 'Whether the gateway believes the node is up (1) or skips it (0), by node index',
    labelNames: ['node'] as const,
    registers,
    collect () {
      nodes().forEach(({ up }, node) => { this.set({ node: String(node) }, up ? 1 : 0) })
    }
  })
  new Gauge({ // eslint-disable-line no-new
    name: 'chain_upstream_lag_blocks',
    help: 'Blocks a node is behind the highest tip any node reported, by node index (absent until heights are known)',
    labelNames: ['node'] as const,
    registers,
    collect () {
      this.reset()
      const all = nodes()
      const tip = Math.max(...all.map(({ latest }) => latest ?? 0))
      all.forEach(({ latest }, node) => { if (latest !== undefined) this.set({ node: String(node) }, tip - latest) })
    }
  })
  const cache = new Counter({
    name: 'chain_cache_lookups_total',
    help: 'Response cache lookups by result: hit, coalesced (shared an identical query in flight), miss',
    labelNames: ['result'] as const,
    registers
  })
  return {
    call: (node: number, ms: number, code: number, latestHeight: string | undefined) => {
      const label = String(node)
      const outcome = code === GrpcCode.OK ? 'ok' : CODE_NAMES.get(code) ?? 'UNKNOWN'
      upstream.observe({ node: label, outcome }, ms / 1000)
      if (code !== GrpcCode.OK) errors.inc({ node: label, code: outcome })
      const at = Number(latestHeight)
      if (latestHeight !== undefined && Number.isSafeInteger(at) && at > 0) height.set({ node: label }, at)
    },
    cacheLookup: (result: 'hit' | 'coalesced' | 'miss') => { cache.inc({ result }) }
  }
}

export type ChainMetrics = ReturnType<typeof createChainMetrics>
