import type { FastifyBaseLogger } from 'fastify'
import type { Kysely } from 'kysely'
import type { StoredApproval } from '../db/repositories/approvals.ts'
import { recentMessages } from '../db/repositories/messages.ts'
import type { DB } from '../db/types.ts'
import type { Approvals, SuspendedTurn } from './approvals.ts'
import type { TurnRegistry } from './turn-registry.ts'
import { CONTEXT_MESSAGES, type ExecuteTurn } from './turn-service.ts'

/** How long a resume waits for the session's lease: the stopped turn may still be letting go of it. */
const LEASE_TRIES = 10
const LEASE_RETRY_MS = 200

/**
 * Resumes a turn that stopped while a tool call waited for approval (its process shut down or died), once
 * the user has decided: on this replica, in the background. Its events reach the user's sockets (the stream
 * it began on is gone) and its answer is stored as the turn's. A new message in the session meanwhile wins:
 * that turn settles the approval, and this one finds nothing to claim.
 */
export function createTurnResumer (deps: {
  db: Kysely<DB>
  turns: Pick<TurnRegistry, 'begin'>
  approvals: Pick<Approvals, 'claim'>
  executeTurn: ExecuteTurn
  log: FastifyBaseLogger
}) {
  return async function resumeTurn (approval: StoredApproval): Promise<void> {
    const { did, sessionId, requestId } = approval
    let turn = await deps.turns.begin(sessionId, did, requestId)
    for (let attempt = 1; turn === undefined && attempt < LEASE_TRIES; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, LEASE_RETRY_MS))
      turn = await deps.turns.begin(sessionId, did, requestId)
    }
    if (turn === undefined) {
      deps.log.warn({ sessionId, requestId }, 'approval decided while another turn runs: not resumed')
      return
    }
    try {
      const claimed = await deps.approvals.claim(approval)
      if (claimed === undefined) return
      const saved = claimed.turn as SuspendedTurn
      await deps.executeTurn({
        did,
        sessionId,
        requestId,
        message: '',
        model: saved.model,
        timezone: saved.timezone,
        browserTools: saved.browserTools,
        actions: saved.actions,
        firstMessage: false,
        history: await recentMessages(deps.db, sessionId, CONTEXT_MESSAGES),
        resume: { approval: claimed }
      }, turn)
    } finally {
      await turn.end()
    }
  }
}

export type ResumeTurn = ReturnType<typeof createTurnResumer>
