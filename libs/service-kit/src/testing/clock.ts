export interface TestClock {
  /** The clock's time in ms since the epoch: an app's `now` option. */
  now: () => number
  /** The same as a Date: an app's `clock` option. */
  date: () => Date
  /** Moves the clock forward (or back, with a negative `ms`). */
  advance: (ms: number) => void
  /** The ISO timestamp `offsetMs` from the clock's time, for request bodies. */
  at: (offsetMs: number) => string
}

/**
 * A clock that stands still until the test moves it, so expiries, voting periods and session TTLs pass
 * without sleeping. Give it to the app's clock seam; everything else keeps the real time.
 */
export function testClock (start = Date.now()): TestClock {
  let current = start
  return {
    now: () => current,
    date: () => new Date(current),
    advance: (ms) => { current += ms },
    at: (offsetMs) => new Date(current + offsetMs).toISOString()
  }
}
