import type { DescriptorOrigin, DescriptorSet } from './descriptor-source.ts'
import type { OptionReader } from './descriptors.ts'
import { createJsonWriter, type JsonWriter } from './json-writer.ts'
import type { ResponseCache } from './response-cache.ts'
import { buildCatalog, type Catalog, type CatalogOptions, type GatewayRoute } from './route-catalog.ts'
import { createRouteTable, type RouteTable } from './route-table.ts'
import { createTranscoder, type Transcode } from './transcoder.ts'
import type { UpstreamPool } from './upstream-pool.ts'

export interface ServedRoute {
  route: GatewayRoute
  transcode: Transcode
}

/** Everything a request needs from one descriptor set, built together and replaced together. */
export interface Served {
  source: DescriptorOrigin
  fingerprint: string
  catalog: Catalog
  table: RouteTable<ServedRoute>
  notes: string[]
  loadedAt: Date
  /** Messages of the set and their JSON writer, for answers not tied to a route (the block stream). */
  registry: DescriptorSet['registry']
  writer: JsonWriter
}

export interface ServedDeps {
  pool: UpstreamPool
  cache: ResponseCache
  options: OptionReader
  catalog: CatalogOptions
  timeoutMs: number
  maxParamLength: number
  /** Largest pagination.limit passed to the node (0: no cap). */
  maxPageLimit: number
}

export function buildServed (set: DescriptorSet, deps: ServedDeps): Served {
  const catalog = buildCatalog(set.registry, deps.options, deps.catalog)
  const writer = createJsonWriter(set.registry, deps.options.traits)
  const transcoderDeps = { ...deps, writer }
  const entries = catalog.routes.map((route) => ({ route, transcode: createTranscoder(route, transcoderDeps) }))
  return {
    source: set.source,
    fingerprint: set.fingerprint,
    catalog,
    table: createRouteTable(entries, deps.maxParamLength),
    notes: set.notes,
    loadedAt: new Date(),
    registry: set.registry,
    writer
  }
}
