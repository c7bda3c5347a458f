import type { SharedState } from '@impact/shared-state'
import { Histogram, type Registry } from 'prom-client'

const TIMED = [
  'get', 'set', 'getAndTouch', 'del', 'delIfValue', 'touchIfValue', 'replaceIfValue', 'incr', 'ttl', 'scan',
  'schedule', 'due', 'claimDue', 'unschedule', 'publish'
] as const satisfies ReadonlyArray<keyof SharedState>

/** The shared state with every command timed by operation and outcome (`shared_state_command_duration_seconds`). */
export function timedSharedState (state: SharedState, registry: Registry): SharedState {
  const duration = new Histogram({
    name: 'shared_state_command_duration_seconds',
    help: 'Shared-state (Redis or in-process) command time by operation and outcome',
    labelNames: ['operation', 'backend', 'outcome'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry]
  })
  const timed: SharedState = Object.create(state) as SharedState
  for (const operation of TIMED) {
    const command = state[operation] as (...args: unknown[]) => Promise<unknown>
    Object.defineProperty(timed, operation, {
      value: async (...args: unknown[]) => {
        const end = duration.startTimer({ operation, backend: state.kind })
        try {
          const result = await command.apply(state, args)
          end({ outcome: 'ok' })
          return result
        } catch (error) {
          end({ outcome: 'error' })
          throw error
        }
      }
    })
  }
  return timed
}
