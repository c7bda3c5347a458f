import { randomUUID } from 'node:crypto'
import type { SharedState, Unsubscribe } from '@impact/shared-state'

/**
 * In-flight turns: a lease per session names the process running its turn; each process keeps a
 * short-lived liveness key, so a lease whose owner is gone is taken over at once, not after its TTL.
 */

export type CancelReason = 'aborted' | 'disconnected' | 'deleted' | 'superseded'

export interface ActiveTurn {
  readonly signal: AbortSignal
  /** Why the turn was cancelled: an abort, the client gone, the session deleted, or its lease lost. */
  readonly reason: () => CancelReason | undefined
  cancel: (reason: CancelReason) => void
  end: () => Promise<void>
  /** True while the turn waits for the user (a tool approval): its client going away then does not cancel it. */
  awaitingUser: boolean
}

export interface TurnRegistryOptions {
  /** Life of this process's liveness key without renewal: how soon a dead owner's leases are taken over. */
  ownerTtlMs: number
}

/** The lease's own TTL: a backstop for leases whose owner cannot be judged (written by older versions). */
const LEASE_MS = 60_000
const CANCEL_CHANNEL = 'turn-abort'

interface Lease { did: string, requestId: string, owner: string }
interface CancelMessage { sessionId: string, did?: string, reason: 'aborted' | 'deleted' }

const leaseKey = (sessionId: string) => `turn:${sessionId}`
const ownerKey = (owner: string) => `turn-owner:${owner}`

const parse = (text: string): Partial<Lease> => {
  try {
    return JSON.parse(text) as Partial<Lease>
  } catch {
    return {}
  }
}

export function createTurnRegistry (state: SharedState, options: TurnRegistryOptions) {
  const owner = randomUUID()
  const local = new Map<string, { did: string, turn: ActiveTurn, ended: Promise<void> }>()
  let unsubscribe: Unsubscribe | undefined
  let liveness: NodeJS.Timeout | undefined

  const stayAlive = async () => { await state.set(ownerKey(owner), owner, { ttlMs: options.ownerTtlMs }) }

  const cancelLocal = (message: CancelMessage) => {
    const entry = local.get(message.sessionId)
    if (entry === undefined) return false
    // An abort must be the caller's own (older replicas send no reason); a deletion ends any turn.
    const reason = message.reason === 'deleted' ? 'deleted' : 'aborted'
    if (reason === 'aborted' && entry.did !== message.did) return false
    entry.turn.cancel(reason)
    return true
  }

  /** True when the lease can be taken: its owner's liveness key is gone, or it is ours and no longer runs. */
  const orphaned = async (sessionId: string, lease: Partial<Lease>) => {
    if (typeof lease.owner !== 'string') return false
    if (lease.owner === owner) return !local.has(sessionId)
    return await state.get(ownerKey(lease.owner)) === null
  }

  function track (sessionId: string, did: string, lease: string): ActiveTurn {
    const key = leaseKey(sessionId)
    const controller = new AbortController()
    let why: CancelReason | undefined
    let ended!: () => void
    // Renew the lease while the turn runs, only while it is still ours: if another replica took it
    // (this process looked dead to it), this turn stops rather than run beside the new one.
    const renew = setInterval(() => {
      state.touchIfValue(key, lease, LEASE_MS).then((held) => { if (!held) turn.cancel('superseded') }, () => {})
    }, LEASE_MS / 3)
    renew.unref()
    const turn: ActiveTurn = {
      awaitingUser: false,
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
        ended()
        try {
          await state.delIfValue(key, lease)
        } catch {
          // Shared state unreachable (or shutting down): another replica takes it once this process is gone.
        }
      }
    }
    local.set(sessionId, { did, turn, ended: new Promise((resolve) => { ended = resolve }) })
    return turn
  }

  return {
    async start () {
      unsubscribe = await state.subscribe(CANCEL_CHANNEL, (message) => {
        try {
          cancelLocal(JSON.parse(message) as CancelMessage)
        } catch {
          // Not a message of ours: ignored.
        }
      })
      // Unreachable shared state must not stop the app from starting: the renewal retries.
      await stayAlive().catch(() => {})
      liveness = setInterval(() => { stayAlive().catch(() => {}) }, Math.floor(options.ownerTtlMs / 3))
      liveness.unref()
    },
    /** Cancels this process's turns, waits for them to end (at most the liveness TTL), then retires the owner. */
    async close () {
      clearInterval(liveness)
      await unsubscribe?.().catch(() => {})
      const running = [...local.values()]
      for (const { turn } of running) turn.cancel('disconnected')
      let timer: NodeJS.Timeout | undefined
      await Promise.race([
        Promise.all(running.map(async (e) => await e.ended)),
        new Promise((resolve) => { timer = setTimeout(resolve, options.ownerTtlMs) })
      ])
      clearTimeout(timer)
      await state.del(ownerKey(owner)).catch(() => {})
    },
    get running () {
      return local.size
    },
    /** This process's owner id (what leases and approval holders name). */
    owner,
    /** Whether the process of an owner id is alive (its liveness mark is in shared state). */
    async alive (other: string): Promise<boolean> {
      return other === owner || await state.get(ownerKey(other)) !== null
    },

    /** Claims the session for one turn; undefined when a live turn is already running there. */
    async begin (sessionId: string, did: string, requestId: string): Promise<ActiveTurn | undefined> {
      const key = leaseKey(sessionId)
      const lease = JSON.stringify({ did, requestId, owner } satisfies Lease)
      const claim = async () => await state.set(key, lease, { ttlMs: LEASE_MS, ifAbsent: true })
      if (await claim()) return track(sessionId, did, lease)
      const current = await state.get(key)
      // Released in between: one more plain claim.
      if (current === null) return await claim() ? track(sessionId, did, lease) : undefined
      if (!await orphaned(sessionId, parse(current))) return undefined
      // Atomic: of replicas racing for an orphaned lease, one takes it.
      return await state.replaceIfValue(key, current, lease, LEASE_MS) ? track(sessionId, did, lease) : undefined
    },

    /** Aborts the caller's running turn in a session, on whichever replica it runs. */
    async abort (sessionId: string, did: string): Promise<boolean> {
      const current = await state.get(leaseKey(sessionId))
      if (current === null || parse(current).did !== did) return false
      const message: CancelMessage = { sessionId, did, reason: 'aborted' }
      if (!cancelLocal(message)) await state.publish(CANCEL_CHANNEL, JSON.stringify(message))
      return true
    },

    /** Cancels whatever turn runs in a session that was just deleted, on whichever replica it runs. */
    async cancelSession (sessionId: string): Promise<void> {
      if (await state.get(leaseKey(sessionId)) === null) return
      const message: CancelMessage = { sessionId, reason: 'deleted' }
      if (!cancelLocal(message)) await state.publish(CANCEL_CHANNEL, JSON.stringify(message))
    }
  }
}

export type TurnRegistry = ReturnType<typeof createTurnRegistry>
