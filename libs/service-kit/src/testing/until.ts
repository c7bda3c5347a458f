import { setTimeout as sleep } from 'node:timers/promises'

export interface UntilOptions {
  /** How long the condition may take to hold, in ms (default 5000). */
  timeout?: number
  /** Pause between checks, in ms (default 10). */
  interval?: number
}

/**
 * Checks `condition` until it holds, for what a test cannot await directly (a subscriber leaving,
 * a cancelled upstream call); throws when it still does not hold after `timeout`.
 */
export async function until (
  condition: () => boolean | Promise<boolean>,
  { timeout = 5000, interval = 10 }: UntilOptions = {}
): Promise<void> {
  const deadline = Date.now() + timeout
  while (!await condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeout} ms`)
    await sleep(interval)
  }
}
