import { randomUUID } from 'node:crypto'
import type { SharedState, Unsubscribe } from '@impact/shared-state'

/**
 * In-flight turns. A shared-state key per session marks a running turn (one at a time per
 * session, whichever replica runs it) and says who owns it; an abort is published to every
 * replica and the one running the turn cancels it.
 */

export interface ActiveTurn {
  readonly signal: AbortSignal
  /** Why the turn was cancelled: `aborted` (POST /messages/abort) or `disconnected` (client gone). */
  readonly reason: () => 'aborted' | 'disconnected' | undefined
  cancel: (reason: 'aborted' | 'disconnected') => void
  end: () => Promise<void>
}

const LEASE_MS = 60_000
const ABORT_CHANNEL = 'turn-abort'

interface Lease { did: string, requestId: string, replica: string }

export function createTurnRegistry (state: SharedState) {
  const replica = randomUUID()
  const local = new Map<string, { did: string, turn: ActiveTurn }>()
  let unsubscribe: Unsubscribe | undefined

  const onAbort = (message: string) => {
    try {
      const { sessionId, did } = JSON.parse(message) as { sessionId: string, did: string }
      const entry = local.get(sessionId)
      if (entry !== undefined && entry.did === did) entry.turn.cancel('aborted')
    } catch {
      // Not ours to read: ignore.
    }
  }

  return {
    async start () {
      unsubscribe = await state.subscribe(ABORT_CHANNEL, onAbort)
    },
    async close () {
      await unsubscribe?.()
      for (const { turn } of local.values()) turn.cancel('disconnected')
    },
    get running () {
      return local.size
    },

    /** Claims the session for one turn; undefined when a turn is already running there. */
    async begin (sessionId: string, did: string, requestId: string): Promise<ActiveTurn | undefined> {
      const key = `turn:${sessionId}`
      const lease = JSON.stringify({ did, requestId, replica } satisfies Lease)
      const claimed = await state.set(key, lease, { ttlMs: LEASE_MS, ifAbsent: true })
      if (!claimed) return undefined
      const controller = new AbortController()
      let why: 'aborted' | 'disconnected' | undefined
      // Renew the lease while the turn runs; a crashed replica's lease simply expires. Only while it
      // is still ours: one that lapsed (a stalled event loop, Redis out of reach) may have been claimed.
      const renew = setInterval(() => { state.touchIfValue(key, lease, LEASE_MS).catch(() => {}) }, LEASE_MS / 3)
      renew.unref()
      const turn: ActiveTurn = {
        signal: controller.signal,
        reason: () => why,
        cancel (reason) {
          if (controller.signal.aborted) return
          why = reason
          controller.abort(new Error(`turn ${reason}`))
        },
        async end () {
          clearInterval(renew)
          if (local.get(sessionId)?.turn === turn) local.delete(sessionId)
          try {
            await state.delIfValue(key, lease)
          } catch {
            // Shared state unreachable (or shutting down): the lease expires by itself within LEASE_MS.
          }
        }
      }
      local.set(sessionId, { did, turn })
      return turn
    },

    /** Aborts the caller's running turn in a session, on whichever replica it runs. */
    async abort (sessionId: string, did: string): Promise<boolean> {
      const current = await state.get(`turn:${sessionId}`)
      if (current === null) return false
      const lease = JSON.parse(current) as Lease
      if (lease.did !== did) return false
      const entry = local.get(sessionId)
      if (entry !== undefined) entry.turn.cancel('aborted')
      else await state.publish(ABORT_CHANNEL, JSON.stringify({ sessionId, did }))
      return true
    }
  }
}

export type TurnRegistry = ReturnType<typeof createTurnRegistry>
