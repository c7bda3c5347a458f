import { createHash } from 'node:crypto'
import type { FileRegistry } from '@bufbuild/protobuf'
import { GrpcCode } from '../errors.ts'
import { buildRegistry, decodeFileDescriptors } from './descriptors.ts'
import type { UpstreamPool } from './upstream-pool.ts'

export const REFLECTION_PATH = '/cosmos.reflection.v1.ReflectionService/FileDescriptors'

export type DescriptorOrigin = 'reflection' | 'bundled'

export interface DescriptorSet {
  registry: FileRegistry
  source: DescriptorOrigin
  /** Which node files were left out (unresolvable imports). */
  notes: string[]
  /** Digest of the node's answer: an unchanged answer needs no new catalogue. */
  fingerprint: string
}

const pause = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms))

/** The descriptor set shipped in descriptors/chain.binpb. */
export function bundledDescriptors (): DescriptorSet {
  return { registry: buildRegistry([]), source: 'bundled', notes: [], fingerprint: 'bundled' }
}

/** One call of the node's reflection service; throws the node's error (ChainStatusError) when it has none. */
export async function reflectDescriptors (pool: UpstreamPool, timeoutMs: number): Promise<DescriptorSet> {
  const answer = await pool.callAny(REFLECTION_PATH, timeoutMs)
  const notes: string[] = []
  const registry = buildRegistry(decodeFileDescriptors(answer.bytes), (file, missing) =>
    notes.push(`left out ${file}: import ${missing} unavailable`)
  )
  const fingerprint = createHash('sha256').update(answer.bytes).digest('base64url')
  return { registry, source: 'reflection', notes, fingerprint }
}

/** Reflection, retried for `waitMs` while no node is reachable (a node that answered an error will repeat it). */
export async function reflectWithin (pool: UpstreamPool, waitMs: number): Promise<DescriptorSet> {
  const until = Date.now() + waitMs
  for (let attempt = 0; ; attempt++) {
    try {
      return await reflectDescriptors(pool, Math.max(500, until - Date.now()))
    } catch (error) {
      const code = (error as { grpcCode?: number }).grpcCode
      const unreachable = code === GrpcCode.UNAVAILABLE || code === GrpcCode.DEADLINE_EXCEEDED
      if (!unreachable || Date.now() + 250 >= until) throw error
      await pause(Math.min(250 * (attempt + 1), 1000))
    }
  }
}
