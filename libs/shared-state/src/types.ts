export interface SetOptions {
  ttlMs?: number
  ifAbsent?: boolean
}

export interface IncrOptions {
  by?: number
  /** Set on creation only (a fixed window). */
  ttlMs?: number
}

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
  getAndTouch: (key: string, ttlMs: number) => Promise<string | null>
  del: (key: string) => Promise<boolean>
  /** Atomic: a lock or lease is released by its owner alone. */
  delIfValue: (key: string, value: string) => Promise<boolean>
  touchIfValue: (key: string, value: string, ttlMs: number) => Promise<boolean>
  replaceIfValue: (key: string, expected: string, value: string, ttlMs: number) => Promise<boolean>
  incr: (key: string, options?: IncrOptions) => Promise<number>
  /** Remaining TTL in ms; -1 when the key has none, -2 when it does not exist (Redis `PTTL`). */
  ttl: (key: string) => Promise<number>
  scan: (prefix: string, limit?: number) => Promise<string[]>
  schedule: (key: string, member: string, at: number) => Promise<void>
  due: (key: string, upTo: number, limit: number) => Promise<Scheduled[]>
  /** Atomic: one racing replica claims it; if that holder dies it falls due again at `nextAt`. */
  claimDue: (key: string, member: string, upTo: number, nextAt: number) => Promise<boolean>
  unschedule: (key: string, member: string, options?: { dueBy?: number }) => Promise<boolean>
  publish: (channel: string, message: string) => Promise<void>
  subscribe: (channel: string, handler: MessageHandler) => Promise<Unsubscribe>
  ping: () => Promise<void>
  close: () => Promise<void>
}
