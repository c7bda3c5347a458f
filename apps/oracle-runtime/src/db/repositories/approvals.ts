import type { ApprovalStatus, ToolApproval } from '@impact/schemas'
import type { Kysely, Selectable } from 'kysely'
import { isForeignKeyViolation } from '@impact/persistence'
import type { DB, ToolApprovalTable } from '../types.ts'

export interface ApprovalKey { sessionId: string, toolCallId: string }

export interface StoredApproval extends ApprovalKey {
  did: string
  requestId: string
  toolName: string
  args: unknown
  summary: string
  status: ApprovalStatus
  reason: string | undefined
  holder: string | null
  turn: unknown
  createdAt: Date
  expiresAt: Date
  decidedAt: Date | undefined
  /** The turn has used the outcome (ran or skipped the tool). */
  settled: boolean
}

export interface NewApproval extends ApprovalKey {
  did: string
  requestId: string
  toolName: string
  args: unknown
  summary: string
  holder: string
  turn: unknown
  createdAt: Date
  expiresAt: Date
}

const toApproval = (row: Selectable<ToolApprovalTable>): StoredApproval => ({
  sessionId: row.session_id,
  toolCallId: row.tool_call_id,
  did: row.did,
  requestId: row.request_id,
  toolName: row.tool_name,
  args: row.args,
  summary: row.summary,
  status: row.status,
  reason: row.reason ?? undefined,
  holder: row.holder,
  turn: row.turn,
  createdAt: new Date(row.created_at),
  expiresAt: new Date(row.expires_at),
  decidedAt: row.decided_at === null ? undefined : new Date(row.decided_at),
  settled: row.settled_at !== null
})

export const approvalDto = (a: StoredApproval): ToolApproval => ({
  toolCallId: a.toolCallId,
  sessionId: a.sessionId,
  requestId: a.requestId,
  toolName: a.toolName,
  args: a.args,
  summary: a.summary,
  status: a.status,
  ...(a.reason !== undefined ? { reason: a.reason } : {}),
  createdAt: a.createdAt.toISOString(),
  expiresAt: a.expiresAt.toISOString(),
  ...(a.decidedAt !== undefined ? { decidedAt: a.decidedAt.toISOString() } : {})
})

const byKey = (key: ApprovalKey) => ({ session_id: key.sessionId, tool_call_id: key.toolCallId })

/**
 * Stores a pending approval; undefined when its session no longer exists. Models may reuse a tool call id
 * in a later turn: a settled approval of the same id is replaced, an open one is not (that throws).
 */
export async function insertApproval (db: Kysely<DB>, a: NewApproval): Promise<StoredApproval | undefined> {
  const values = {
    ...byKey(a),
    did: a.did,
    request_id: a.requestId,
    tool_name: a.toolName,
    args: JSON.stringify(a.args ?? null),
    summary: a.summary,
    status: 'pending' as const,
    reason: null,
    holder: a.holder,
    turn: JSON.stringify(a.turn),
    created_at: a.createdAt,
    expires_at: a.expiresAt,
    decided_at: null,
    settled_at: null
  }
  try {
    const row = await db.insertInto('oracle_tool_approvals').values(values)
      .onConflict((oc) => oc.columns(['session_id', 'tool_call_id'])
        .doUpdateSet(values).where('oracle_tool_approvals.settled_at', 'is not', null))
      .returningAll().executeTakeFirst()
    if (row === undefined) throw new Error(`tool call ${a.toolCallId} already waits for an approval`)
    return toApproval(row)
  } catch (error) {
    if (isForeignKeyViolation(error)) return undefined
    throw error
  }
}

export async function findApproval (db: Kysely<DB>, key: ApprovalKey): Promise<StoredApproval | undefined> {
  const row = await db.selectFrom('oracle_tool_approvals').selectAll()
    .where('session_id', '=', key.sessionId).where('tool_call_id', '=', key.toolCallId).executeTakeFirst()
  return row === undefined ? undefined : toApproval(row)
}

/** The user's decision, taken only while the approval is pending and unexpired (atomic: one decision wins). */
export async function decideApproval (
  db: Kysely<DB>,
  key: ApprovalKey,
  decision: { did: string, status: 'approved' | 'denied', reason?: string | undefined, at: Date }
): Promise<StoredApproval | undefined> {
  const row = await db.updateTable('oracle_tool_approvals')
    .set({ status: decision.status, reason: decision.reason ?? null, decided_at: decision.at })
    .where('session_id', '=', key.sessionId).where('tool_call_id', '=', key.toolCallId)
    .where('did', '=', decision.did).where('status', '=', 'pending').where('expires_at', '>', decision.at)
    .returningAll().executeTakeFirst()
  return row === undefined ? undefined : toApproval(row)
}

/** Ends a pending approval without a decision (timed out, or its turn went away): settled at once. */
export async function closeApproval (
  db: Kysely<DB>,
  key: ApprovalKey,
  outcome: { status: 'expired' | 'cancelled', reason?: string, at: Date }
): Promise<StoredApproval | undefined> {
  const row = await db.updateTable('oracle_tool_approvals')
    .set({
      status: outcome.status,
      reason: outcome.reason ?? null,
      decided_at: outcome.at,
      settled_at: outcome.at,
      holder: null
    })
    .where('session_id', '=', key.sessionId).where('tool_call_id', '=', key.toolCallId)
    .where('status', '=', 'pending')
    .returningAll().executeTakeFirst()
  return row === undefined ? undefined : toApproval(row)
}

/** Claims a decided approval for the one turn that acts on it (the waiting turn or a resumed one). */
export async function settleApproval (db: Kysely<DB>, key: ApprovalKey): Promise<StoredApproval | undefined> {
  const row = await db.updateTable('oracle_tool_approvals')
    .set({ settled_at: new Date(), holder: null })
    .where('session_id', '=', key.sessionId).where('tool_call_id', '=', key.toolCallId)
    .where('settled_at', 'is', null).where('status', '!=', 'pending')
    .returningAll().executeTakeFirst()
  return row === undefined ? undefined : toApproval(row)
}

/** The turn holding the approval stopped waiting (its process is shutting down): whoever decides resumes it. */
export async function releaseApproval (db: Kysely<DB>, key: ApprovalKey, holder: string): Promise<void> {
  await db.updateTable('oracle_tool_approvals').set({ holder: null })
    .where('session_id', '=', key.sessionId).where('tool_call_id', '=', key.toolCallId)
    .where('holder', '=', holder).execute()
}

/** Approvals of a session still owed to a turn (pending, or decided and not yet acted on), oldest first. */
export async function openApprovals (db: Kysely<DB>, sessionId: string): Promise<StoredApproval[]> {
  const rows = await db.selectFrom('oracle_tool_approvals').selectAll()
    .where('session_id', '=', sessionId).where('settled_at', 'is', null)
    .orderBy('created_at').execute()
  return rows.map(toApproval)
}

/** Decided approvals no turn has acted on yet, in every session (their turn stopped meanwhile). */
export async function owedApprovals (db: Kysely<DB>, limit: number): Promise<StoredApproval[]> {
  const rows = await db.selectFrom('oracle_tool_approvals').selectAll()
    .where('settled_at', 'is', null).where('status', 'in', ['approved', 'denied'])
    .orderBy('created_at').limit(limit).execute()
  return rows.map(toApproval)
}
