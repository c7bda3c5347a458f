import pLimit from 'p-limit'
import { UssdPinBusyError } from '../errors.ts'

export interface PinQueueOptions {
  /** Tasks run at once. */
  concurrency: number
  /** Tasks that may wait for a turn; one more is refused at once. */
  maxQueued: number
}

/**
 * A bounded queue for PIN hashing: scrypt shares libuv's thread pool with file and DNS work, so an
 * unbounded burst would delay every hop. Past the queue, UssdPinBusyError; other menus keep answering.
 */
export function createPinQueue (options: PinQueueOptions) {
  const limit = pLimit(options.concurrency)
  return {
    async run<T> (task: () => Promise<T>): Promise<T> {
      // p-limit counts a task as active or pending from the call on, so this holds for bursts too.
      const taken = limit.activeCount + limit.pendingCount
      if (taken >= options.concurrency + options.maxQueued) throw new UssdPinBusyError()
      return await limit(task)
    }
  }
}

export type PinQueue = ReturnType<typeof createPinQueue>
