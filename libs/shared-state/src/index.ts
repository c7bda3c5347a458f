import { createMemoryState } from './memory-state.ts'
import { createRedisState } from './redis-state.ts'
import type { SharedState } from './types.ts'

export type * from './types.ts'
export { createMemoryState } from './memory-state.ts'
export { TtlMap } from './ttl-map.ts'
export { createRedisState, redisClientOf, DEFAULT_COMMAND_TIMEOUT_MS, type RedisStateOptions } from './redis-state.ts'

export interface SharedStateOptions {
  /** `REDIS_URL`; without it the state lives in this process only. */
  url?: string | undefined
  /** Namespace of this app's keys and channels, e.g. `ussd:`. */
  prefix: string
  /** Longest a Redis command may wait for its reply (see RedisStateOptions); unused in process. */
  commandTimeoutMs?: number
}

/** Redis when a URL is configured (state shared across replicas), in-process otherwise. */
export function createSharedState (options: SharedStateOptions): SharedState {
  return options.url !== undefined && options.url !== ''
    ? createRedisState({
      url: options.url,
      prefix: options.prefix,
      ...(options.commandTimeoutMs !== undefined ? { commandTimeoutMs: options.commandTimeoutMs } : {})
    })
    : createMemoryState()
}
