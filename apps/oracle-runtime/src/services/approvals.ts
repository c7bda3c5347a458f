import type { ToolApproval, ToolDeclaration } from '@impact/schemas'
import type { SharedState, Unsubscribe } from '@impact/shared-state'
import type { FastifyBaseLogger } from 'fastify'
import type { Kysely } from 'kysely'
import {
  approvalDto, closeApproval, decideApproval, findApproval, insertApproval, openApprovals, owedApprovals,
  releaseApproval, settleApproval, type ApprovalKey, type StoredApproval
} from '../db/repositories/approvals.ts'
import { insertMessage, type StoredMessage } from '../db/repositories/messages.ts'
import type { DB } from '../db/types.ts'
import { ApprovalClosedError, ApprovalNotFoundError } from '../errors.ts'
import { notRunOutput, type ApprovalVerdict, type ResumePoint } from './agent/run-turn.ts'
import type { EventBus } from './event-bus.ts'
import type { CancelReason } from './turn-registry.ts'

/**
 * Approval of tool calls that change state. The turn that wants to run one stores the request (with
 * what resuming the turn needs), announces it (`approval_request`, SSE and socket) and waits. The user's
 * `POST /approvals/:toolCallId` decides it in the database, the single source of truth, then wakes the
 * waiting turn here or on its replica (shared-state pub/sub). When no turn waits any more (its process
 * shut down or died), the decision resumes the turn from the stored point instead (`resume: true`).
 * Exactly one turn acts on a decision: acting starts by settling the row, which succeeds once.
 */

/** What a stopped turn needs to go on: the choices of its message and where it stood. */
export interface SuspendedTurn {
  model: string
  timezone?: string | undefined
  browserTools: ToolDeclaration[]
  actions: ToolDeclaration[]
  point: ResumePoint
}

export interface ApprovalRequest {
  did: string
  sessionId: string
  requestId: string
  call: { id: string, name: string, args: Record<string, unknown> }
  summary: string
  turn: SuspendedTurn
  signal: AbortSignal
  /** Why the turn's signal fired: an abort or a deleted session cancels the request, anything else suspends it. */
  why: () => CancelReason | undefined
}

export interface ApprovalsDeps {
  db: Kysely<DB>
  state: SharedState
  bus: Pick<EventBus, 'publish'>
  log: FastifyBaseLogger
  /** This process's owner id, and whether another one is alive (turns.owner / turns.alive). */
  owner: string
  alive: (owner: string) => Promise<boolean>
  timeoutMs: number
}

const CHANNEL = 'approval-decisions'
const SWEEP_MS = 60_000
const keyOf = (key: ApprovalKey) => `${key.sessionId}\0${key.toolCallId}`

export const verdictOf = (a: StoredApproval): ApprovalVerdict =>
  a.status === 'approved'
    ? { kind: 'approved' }
    : a.status === 'denied'
      ? { kind: 'denied', reason: a.reason }
      : a.status === 'expired'
        ? { kind: 'expired', afterMs: a.expiresAt.getTime() - a.createdAt.getTime() }
        : { kind: 'cancelled', why: 'turn' }

export function createApprovals (deps: ApprovalsDeps) {
  const { db, log } = deps
  /** Turns waiting here, by session and call: called when a decision may have been taken. */
  const waiting = new Map<string, () => void>()
  let unsubscribe: Unsubscribe | undefined
  let sweeper: NodeJS.Timeout | undefined

  /** Tells the session's clients where the approval stands. */
  const announce = (a: StoredApproval) => {
    deps.bus.publish({
      name: 'approval_request',
      sessionId: a.sessionId,
      requestId: a.requestId,
      did: a.did,
      data: approvalDto(a)
    })
  }

  /** Stores the turn's answer as far as it got, with the call's outcome: nothing will resume it any more. */
  const storeStopped = async (a: StoredApproval, verdict: ApprovalVerdict): Promise<StoredMessage | undefined> => {
    const { point } = a.turn as SuspendedTurn
    const call = { id: a.toolCallId, name: a.toolName, args: a.args, status: 'error' as const }
    return await insertMessage(db, {
      sessionId: a.sessionId,
      requestId: a.requestId,
      role: 'ai',
      content: point.content,
      toolCalls: [...point.toolCalls, { ...call, output: notRunOutput(a.toolName, verdict) }],
      ...(point.reasoning !== '' ? { reasoning: point.reasoning } : {}),
      metadata: { approval: a.status }
    })
  }

  return {
    /** Asks the user, then waits for the decision, the deadline, or the end of the turn. */
    async ask (request: ApprovalRequest): Promise<ApprovalVerdict> {
      const key = { sessionId: request.sessionId, toolCallId: request.call.id }
      const createdAt = new Date()
      const stored = await insertApproval(db, {
        ...key,
        did: request.did,
        requestId: request.requestId,
        toolName: request.call.name,
        args: request.call.args,
        summary: request.summary,
        holder: deps.owner,
        turn: request.turn,
        createdAt,
        expiresAt: new Date(createdAt.getTime() + deps.timeoutMs)
      })
      if (stored === undefined) return { kind: 'cancelled', why: 'turn' }
      return await new Promise<ApprovalVerdict>((resolve) => {
        let done = false
        const finish = (verdict: ApprovalVerdict) => {
          if (done) return
          done = true
          clearTimeout(timer)
          waiting.delete(keyOf(key))
          request.signal.removeEventListener('abort', onAbort)
          resolve(verdict)
        }
        // Any failure below leaves the request pending and the turn stopped: a later decision resumes it.
        const guard = (work: () => Promise<void>) => () => {
          work().catch((err: unknown) => {
            log.error({ err, ...key }, 'approval wait failed')
            finish({ kind: 'suspended' })
          })
        }
        const take = async () => {
          const settled = await settleApproval(db, key)
          if (settled !== undefined) {
            announce(settled)
            finish(verdictOf(settled))
            return
          }
          // Not decided yet (a stray wake-up), or already acted on elsewhere, which then carries the turn.
          if ((await findApproval(db, key))?.status !== 'pending') finish({ kind: 'suspended' })
        }
        const expire = async () => {
          const closed = await closeApproval(db, key, { status: 'expired', at: new Date() })
          if (closed === undefined) { await take(); return }
          announce(closed)
          finish(verdictOf(closed))
        }
        const stop = async () => {
          const why = request.why()
          if (why !== 'aborted' && why !== 'deleted') {
            await releaseApproval(db, key, deps.owner)
            finish({ kind: 'suspended' })
            return
          }
          const closed = await closeApproval(db, key, { status: 'cancelled', at: new Date() })
          if (closed !== undefined) announce(closed)
          else await settleApproval(db, key)
          finish({ kind: 'cancelled', why: 'turn' })
        }
        const onAbort = guard(stop)
        const timer = setTimeout(guard(expire), deps.timeoutMs)
        waiting.set(keyOf(key), guard(take))
        request.signal.addEventListener('abort', onAbort, { once: true })
        if (request.signal.aborted) onAbort()
        announce(stored)
      })
    },

    /**
     * The user's decision. 404 for an unknown call or another user's; 409 once decided or expired. `resume`:
     * no turn waits for it any more, so the caller resumes the turn from its stored point.
     */
    async decide (
      did: string,
      decision: { sessionId: string, toolCallId: string, approved: boolean, reason?: string | undefined }
    ): Promise<{ approval: StoredApproval, resume: boolean }> {
      const key = { sessionId: decision.sessionId, toolCallId: decision.toolCallId }
      const status = decision.approved ? 'approved' : 'denied'
      const reason = decision.approved ? undefined : decision.reason
      const decided = await decideApproval(db, key, { did, status, reason, at: new Date() })
      if (decided === undefined) {
        const current = await findApproval(db, key)
        if (current === undefined || current.did !== did) throw new ApprovalNotFoundError()
        if (current.status !== 'pending') throw new ApprovalClosedError(current.status)
        // Past its deadline with no turn left to notice: it ends here, and the turn's answer is kept as it was.
        const closed = await closeApproval(db, key, { status: 'expired', at: new Date() })
        if (closed !== undefined) {
          announce(closed)
          await storeStopped(closed, verdictOf(closed))
        }
        throw new ApprovalClosedError('expired')
      }
      const local = waiting.get(keyOf(key))
      if (local !== undefined) {
        local()
        return { approval: decided, resume: false }
      }
      const holder = decided.holder
      if (holder !== null && holder !== deps.owner && await deps.alive(holder)) {
        await deps.state.publish(CHANNEL, JSON.stringify(key))
        return { approval: decided, resume: false }
      }
      return { approval: decided, resume: true }
    },

    /** Claims a decided approval for the turn about to resume on it; undefined when another turn has it. */
    async claim (approval: ApprovalKey): Promise<StoredApproval | undefined> {
      const settled = await settleApproval(db, approval)
      if (settled !== undefined) announce(settled)
      return settled
    },

    /** The session's requests still waiting for the user (history lists them). */
    async pending (sessionId: string): Promise<ToolApproval[]> {
      const now = Date.now()
      return (await openApprovals(db, sessionId))
        .filter((a) => a.status === 'pending' && a.expiresAt.getTime() > now)
        .map(approvalDto)
    },

    /**
     * A new message starts a turn in the session: requests its earlier turns left open end here (expired, or
     * passed over by the new message), and what those turns had said is stored. Returns the stored answers.
     */
    async settleOpen (sessionId: string): Promise<StoredMessage[]> {
      const stored: StoredMessage[] = []
      for (const open of await openApprovals(db, sessionId)) {
        let ended: StoredApproval | undefined
        let verdict: ApprovalVerdict
        if (open.status === 'pending') {
          const expired = open.expiresAt.getTime() <= Date.now()
          ended = await closeApproval(db, open, { status: expired ? 'expired' : 'cancelled', at: new Date() })
          if (ended !== undefined) announce(ended)
          verdict = expired && ended !== undefined ? verdictOf(ended) : { kind: 'cancelled', why: 'superseded' }
        } else {
          ended = await settleApproval(db, open)
          verdict = open.status === 'approved' ? { kind: 'cancelled', why: 'interrupted' } : verdictOf(open)
        }
        if (ended === undefined) continue
        const message = await storeStopped(ended, verdict)
        if (message !== undefined) stored.push(message)
      }
      return stored
    },

    /** Starts listening for decisions taken on other replicas and resumes turns owed a decision (now and then). */
    async start (resume: (approval: StoredApproval) => Promise<void>) {
      unsubscribe = await deps.state.subscribe(CHANNEL, (message) => {
        try {
          waiting.get(keyOf(JSON.parse(message) as ApprovalKey))?.()
        } catch {
          // Not a message of ours: ignored.
        }
      })
      // A decision that reached a process as it shut down is acted on by whichever process sweeps next.
      const sweep = async () => {
        for (const owed of await owedApprovals(db, 50)) {
          if (waiting.has(keyOf(owed))) continue
          if (owed.holder !== null && owed.holder !== deps.owner && await deps.alive(owed.holder)) continue
          await resume(owed)
        }
      }
      const run = () => { sweep().catch((err: unknown) => log.warn({ err }, 'approval sweep failed')) }
      run()
      sweeper = setInterval(run, SWEEP_MS)
      sweeper.unref()
    },

    async close () {
      clearInterval(sweeper)
      await unsubscribe?.().catch(() => {})
    }
  }
}

export type Approvals = ReturnType<typeof createApprovals>
