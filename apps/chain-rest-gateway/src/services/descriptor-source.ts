import type { FileRegistry } from '@bufbuild/protobuf'
import { CHAIN_DESCRIPTORS_UNAVAILABLE, GrpcCode } from '../errors.ts'
import { buildRegistry, decodeFileDescriptors } from './descriptors.ts'
import type { UpstreamPool } from './upstream-pool.ts'

export const REFLECTION_PATH = '/cosmos.reflection.v1.ReflectionService/FileDescriptors'

export interface DescriptorSource {
  registry: FileRegistry
  source: 'reflection' | 'bundled'
  /** Why reflection was not used, or which node files were left out. */
  notes: string[]
}

const pause = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms))

/** The node's own descriptors (routes match the binary), else the bundled set; `auto` waits `waitMs` for a node. */
export async function loadDescriptors (
  mode: 'auto' | 'reflection' | 'bundled',
  pool: UpstreamPool,
  waitMs: number
): Promise<DescriptorSource> {
  const notes: string[] = []
  if (mode !== 'bundled') {
    const until = Date.now() + waitMs
    let reason = ''
    for (let attempt = 0; ; attempt++) {
      try {
        const answer = await pool.callAny(REFLECTION_PATH, Math.max(500, until - Date.now()))
        const registry = buildRegistry(decodeFileDescriptors(answer.bytes), (file, missing) =>
          notes.push(`left out ${file}: import ${missing} unavailable`)
        )
        return { registry, source: 'reflection', notes }
      } catch (error) {
        reason = (error as Error).message
        // Only an unreachable node is worth waiting for; one that answered an error will answer it again.
        const code = (error as { grpcCode?: number }).grpcCode
        if ((code !== GrpcCode.UNAVAILABLE && code !== GrpcCode.DEADLINE_EXCEEDED) || Date.now() + 250 >= until) break
        await pause(Math.min(250 * (attempt + 1), 1000))
      }
    }
    if (mode === 'reflection') throw new CHAIN_DESCRIPTORS_UNAVAILABLE(reason)
    notes.push(`node reflection unavailable (${reason}); using the bundled descriptor set`)
  }
  return { registry: buildRegistry([]), source: 'bundled', notes }
}
