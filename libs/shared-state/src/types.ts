export interface SetOptions {
  /** Expire the key after this many milliseconds. */
  ttlMs?: number
  /** Only write when the key does not exist yet (Redis `SET NX`); the result says whether it was written. */
  ifAbsent?: boolean
}

export interface IncrOptions {
  by?: number
  /** TTL applied when the counter is created (a fixed window), not extended by later increments. */
  ttlMs?: number
}

/** A member of a schedule and the time (ms since the epoch) it is due. */
export interface Scheduled {
  member: string
  at: number
}

export type MessageHandler = (message: string) => void
export type Unsubscribe = () => Promise<void>

/** State shared between replicas of an app; keys and channels are namespaced by the store's prefix. */
export interface SharedState {
  readonly kind: 'redis' | 'memory'
  get: (key: string) => Promise<string | null>
  /** `false` only when `ifAbsent` met another value; already holding `value` counts as written (a retry). */
  set: (key: string, value: string, options?: SetOptions) => Promise<boolean>
  /** Reads a key and restarts its TTL in one round trip (sliding expiry); `null` when absent. */
  getAndTouch: (key: string, ttlMs: number) => Promise<string | null>
  del: (key: string) => Promise<boolean>
  /** Deletes the key only while it holds `value` (atomic), so a lock or lease is released by its owner alone. */
  delIfValue: (key: string, value: string) => Promise<boolean>
  /** Restarts the key's TTL only while it still holds `value` (atomic, as `delIfValue`); true when it did. */
  touchIfValue: (key: string, value: string, ttlMs: number) => Promise<boolean>
  /** Writes `value` with a fresh TTL only while the key holds `expected` (atomic): one racing claimant wins. */
  replaceIfValue: (key: string, expected: string, value: string, ttlMs: number) => Promise<boolean>
  incr: (key: string, options?: IncrOptions) => Promise<number>
  /** Remaining TTL in ms; -1 when the key has none, -2 when it does not exist (Redis `PTTL`). */
  ttl: (key: string) => Promise<number>
  /** Keys (without the store prefix) that start with `prefix`, at most `limit` of them. */
  scan: (prefix: string, limit?: number) => Promise<string[]>
  /**
   * Schedules: members ordered by a due time (a Redis sorted set), for work any replica may pick up.
   * `schedule` adds the member or moves it to `at`.
   */
  schedule: (key: string, member: string, at: number) => Promise<void>
  /** Up to `limit` members due by `upTo`, earliest first. */
  due: (key: string, upTo: number, limit: number) => Promise<Scheduled[]>
  /**
   * Moves a member that is due by `upTo` to `nextAt` (atomic): of racing replicas one claims it, and a
   * claim whose holder dies falls due again at `nextAt`. False when it is absent or not due.
   */
  claimDue: (key: string, member: string, upTo: number, nextAt: number) => Promise<boolean>
  /** Removes a member; with `dueBy`, only while it is due by then (atomic), so one remover owns it. */
  unschedule: (key: string, member: string, options?: { dueBy?: number }) => Promise<boolean>
  publish: (channel: string, message: string) => Promise<void>
  subscribe: (channel: string, handler: MessageHandler) => Promise<Unsubscribe>
  /** Throws when the backing store cannot be reached. */
  ping: () => Promise<void>
  close: () => Promise<void>
}
