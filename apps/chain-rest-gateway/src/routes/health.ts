import type { FastifyRequest } from 'fastify'
import type { HealthOptions } from '@impact/service-kit'
import { presentedKey } from '../plugins/api-key.ts'
import type { Served } from '../services/served.ts'
import type { UpstreamPool, UpstreamStatus } from '../services/upstream-pool.ts'

export interface HealthDeps {
  mode: 'auto' | 'reflection' | 'bundled'
  served: () => Served | undefined
  pool: UpstreamPool
  apiKeys: readonly string[]
}

const nodeState = (node: UpstreamStatus) => (!node.up ? 'disconnected' : node.lagging ? 'lagging' : 'connected')

const withState = (message: string, healthState: string) => Object.assign(new Error(message), { healthState })

/**
 * Readiness: a reachable node, and in `reflection` mode the node's own descriptors (503 until then).
 * It says which descriptors are served and how many routes they gave. Node addresses are internal
 * topology: listed only to callers presenting an API key, otherwise nodes are numbered.
 */
export function createHealthOptions (deps: HealthDeps): Omit<HealthOptions, 'environment'> {
  const reflection = async () => {
    const served = deps.served()
    if (served?.source === 'reflection') return
    throw served === undefined
      ? withState('no descriptors yet', 'waiting')
      : withState('serving the bundled descriptor set', 'retrying')
  }
  const identify = (request: FastifyRequest) =>
    deps.apiKeys.length > 0 && presentedKey(request, deps.apiKeys) === 'accepted'
      ? (url: string) => `upstream ${url}`
      : (_url: string, index: number) => `upstream #${index + 1}`

  return {
    landing: {
      message: 'chain-rest-gateway is running',
      extra: () => ({ descriptors: deps.served()?.source ?? 'none', routes: deps.served()?.table.size ?? 0 })
    },
    checks: {
      chain: async () => {
        if (!await deps.pool.anyUp()) throw new Error('no chain node is reachable')
      },
      ...(deps.mode === 'reflection' ? { reflection } : {})
    },
    // Serving the shipped set is degraded but ready: the routes it has work against any node.
    advisory: deps.mode === 'auto' ? { reflection } : {},
    report: (request) => {
      const served = deps.served()
      const name = identify(request)
      const nodes = deps.pool.status()
      const heights = nodes.flatMap((node) => (node.up && node.latest !== undefined ? [node.latest] : []))
      return {
        descriptors: served?.source ?? 'none',
        routes: String(served?.table.size ?? 0),
        ...(heights.length > 0 ? { height: String(Math.max(...heights)) } : {}),
        ...Object.fromEntries(nodes.map((node, index) => [name(node.url, index), nodeState(node)]))
      }
    }
  }
}
