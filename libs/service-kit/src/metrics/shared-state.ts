import type { SharedState } from '@impact/shared-state'
import { Histogram, type Registry } from 'prom-client'

const TIMED = [
  'get', 'set', 'getAndTouch', 'del', 'delIfValue', 'touchIfValue', 'replaceIfValue', 'incr', 'ttl', 'scan',
  'schedule', 'due', 'claimDue', 'unschedule', 'publish'
] as const satisfies ReadonlyArray<keyof SharedState>

/**
 * The shared state with every command timed by operation and outcome (`shared_state_command_duration_seconds`).
 * In-process state is left untimed: its commands take microseconds, and timing them cost 8% of a USSD hop.
 */
export function timedSharedState (state: SharedState, registry: Registry): SharedState {
  const duration = new Histogram({
    name: 'shared_state_command_duration_seconds',
    help: 'Shared-state (Redis or in-process) command time by operation and outcome',
    labelNames: ['operation', 'backend', 'outcome'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry]
  })
  if (state.kind !== 'redis') return state
  const timed: SharedState = Object.create(state) as SharedState
  for (const operation of TIMED) {
    const command = state[operation] as (...args: unknown[]) => Promise<unknown>
    // Label sets made once: a command is timed on every hop, so the hot path only reads the clock.
    const ok = { operation, backend: state.kind, outcome: 'ok' }
    const failed = { operation, backend: state.kind, outcome: 'error' }
    Object.defineProperty(timed, operation, {
      value: async (...args: unknown[]) => {
        const started = performance.now()
        try {
          const result = await command.apply(state, args)
          duration.observe(ok, (performance.now() - started) / 1000)
          return result
        } catch (error) {
          duration.observe(failed, (performance.now() - started) / 1000)
          throw error
        }
      }
    })
  }
  return timed
}
