import { bundledDescriptors, type DescriptorOrigin, type DescriptorSet } from './descriptor-source.ts'

/**
 * The descriptors being served and the route catalogue built from them, replaced as a whole: a
 * request reads `current` once and finishes with what it read, so a swap never mixes two sets.
 * Without reflection the shipped set is served while reflection is retried with backoff; with it,
 * the node is asked again every `refreshMs` and a changed answer (a chain upgrade) is swapped in.
 */
export interface LiveCatalogOptions<T extends { source: DescriptorOrigin, fingerprint: string }> {
  /** auto: shipped set until reflection works; reflection: nothing served until it works; bundled: never ask. */
  mode: 'auto' | 'reflection' | 'bundled'
  /** The first reflection, which may wait a little for a node that is still starting. */
  initial: () => Promise<DescriptorSet>
  /** Later attempts (retries, refreshes). */
  reflect: () => Promise<DescriptorSet>
  build: (set: DescriptorSet) => T
  retryMaxMs: number
  refreshMs: number
  onSwap: (next: T, previous: T | undefined) => void
  onFailure: (reason: string, failures: number) => void
}

const FIRST_RETRY_MS = 500

export function createLiveCatalog<T extends { source: DescriptorOrigin, fingerprint: string }> (
  options: LiveCatalogOptions<T>
) {
  let current: T | undefined
  let timer: NodeJS.Timeout | undefined
  let closed = false
  let failures = 0

  function install (set: DescriptorSet) {
    if (current?.fingerprint === set.fingerprint) return
    const next = options.build(set)
    const previous = current
    current = next
    options.onSwap(next, previous)
  }

  function failed (error: unknown) {
    failures++
    options.onFailure((error as Error).message, failures)
  }

  async function reflectOnce (load: () => Promise<DescriptorSet>) {
    try {
      install(await load())
      failures = 0
    } catch (error) {
      failed(error)
    }
  }

  function schedule () {
    if (closed || options.mode === 'bundled') return
    const reflected = current?.source === 'reflection'
    if (reflected && options.refreshMs <= 0) return
    const delay = reflected
      ? options.refreshMs
      : Math.min(options.retryMaxMs, FIRST_RETRY_MS * 2 ** Math.min(Math.max(failures - 1, 0), 16))
    timer = setTimeout(() => {
      reflectOnce(options.reflect).finally(schedule).catch(() => {})
    }, delay)
    timer.unref()
  }

  return {
    /** What requests are served with; undefined until reflection works in `reflection` mode. */
    get current (): T | undefined {
      return current
    },

    async start () {
      if (options.mode === 'bundled') {
        install(bundledDescriptors())
        return
      }
      await reflectOnce(options.initial)
      if (current === undefined && options.mode === 'auto') install(bundledDescriptors())
      schedule()
    },

    close () {
      closed = true
      clearTimeout(timer)
    }
  }
}

export type LiveCatalog<T extends { source: DescriptorOrigin, fingerprint: string }> =
  ReturnType<typeof createLiveCatalog<T>>
