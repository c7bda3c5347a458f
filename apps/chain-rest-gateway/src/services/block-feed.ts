import { LATEST_BLOCK_PATH, readBlockHeight } from './block-height.ts'
import type { UpstreamPool } from './upstream-pool.ts'

/**
 * One upstream feed of new blocks for every stream client: GetLatestBlock is polled every `intervalMs`
 * while at least one client listens (started by the first, stopped with the last), and each new
 * height is handed to all of them. The last `resumeBlocks` events are kept so a client reconnecting
 * with Last-Event-ID gets what it missed.
 */
export interface BlockEvent {
  height: number
  /** The block as JSON, rendered once for all clients. */
  data: string
}

export type BlockListener = (event: BlockEvent) => void

export interface BlockFeedOptions {
  pool: Pick<UpstreamPool, 'call'>
  intervalMs: number
  timeoutMs: number
  resumeBlocks: number
  /** GetLatestBlockResponse bytes → JSON. */
  render: (bytes: Uint8Array, height: number) => string
  onError?: (error: unknown) => void
}

export function createBlockFeed (options: BlockFeedOptions) {
  const listeners = new Set<BlockListener>()
  const recent: BlockEvent[] = []
  let timer: NodeJS.Timeout | undefined
  let polling = false
  let polls = 0

  const newest = () => recent[recent.length - 1]

  async function poll () {
    if (polling) return
    polling = true
    polls++
    try {
      const answer = await options.pool.call(LATEST_BLOCK_PATH, new Uint8Array(0), undefined, options.timeoutMs)
      const height = readBlockHeight(answer.bytes)
      const top = newest()
      if (height === undefined || (top !== undefined && height <= top.height) || timer === undefined) return
      const event = { height, data: options.render(answer.bytes, height) }
      recent.push(event)
      if (recent.length > options.resumeBlocks) recent.shift()
      for (const listener of listeners) listener(event)
    } catch (error) {
      options.onError?.(error)
    } finally {
      polling = false
    }
  }

  function start () {
    const run = () => { poll().catch(() => {}) }
    timer = setInterval(run, options.intervalMs)
    run()
  }

  function stop () {
    clearInterval(timer)
    timer = undefined
  }

  return {
    /**
     * Listens for new blocks. `after` (a height, from Last-Event-ID) first replays the kept events above
     * it; without it the newest kept event is sent at once when it is current. Returns the unsubscribe.
     */
    subscribe (listener: BlockListener, after?: number): () => void {
      const wasRunning = timer !== undefined
      listeners.add(listener)
      if (after !== undefined) {
        for (const event of recent) if (event.height > after && listeners.has(listener)) listener(event)
      } else if (wasRunning && newest() !== undefined) {
        listener(newest()!)
      }
      if (!wasRunning && listeners.size > 0) start()
      return () => {
        if (!listeners.delete(listener)) return
        if (listeners.size === 0) stop()
      }
    },
    stats: () => ({ listeners: listeners.size, running: timer !== undefined, polls, kept: recent.length }),
    close () {
      listeners.clear()
      stop()
    }
  }
}

export type BlockFeed = ReturnType<typeof createBlockFeed>
