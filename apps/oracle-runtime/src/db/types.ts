import type { Capability, ToolCallRecord } from '@impact/schemas'
import type { ColumnType, Generated } from 'kysely'

/** Tables of oracle-runtime, as kysely sees them. bigint columns arrive as strings from pg: read them with Number(). */

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
type BigIntColumn = ColumnType<string | number | bigint, number | bigint, number | bigint>
type Json<T> = ColumnType<T, string, string>

export interface SessionTable {
  id: string
  did: string
  title: string
  oracle_name: string
  created_at: Timestamp
  last_updated_at: Timestamp
  /** Strictly increasing with every change of the session (a sequence): the list's order. */
  activity: Generated<string>
}

export interface MessageTable {
  seq: ColumnType<string | number | bigint, never, never>
  id: string
  session_id: string
  request_id: string
  role: 'human' | 'ai'
  content: string
  tool_calls: Json<ToolCallRecord[]> | null
  reasoning: string | null
  attachments: Json<unknown[]> | null
  metadata: Json<Record<string, unknown>> | null
  created_at: Timestamp
}

export interface ToolApprovalTable {
  session_id: string
  tool_call_id: string
  did: string
  request_id: string
  tool_name: string
  args: Json<unknown>
  summary: string
  status: 'pending' | 'approved' | 'denied' | 'expired' | 'cancelled'
  reason: string | null
  /** Owner id of the process whose turn waits on the approval; null once that turn stopped waiting. */
  holder: string | null
  /** What resuming the turn needs (services/approvals.ts `SuspendedTurn`). */
  turn: Json<unknown>
  created_at: Timestamp
  expires_at: Timestamp
  decided_at: Timestamp | null
  /** When the turn used the outcome (ran or skipped the tool); null while it is still owed to a turn. */
  settled_at: Timestamp | null
}

export interface DelegationTable {
  did: string
  raw: string
  audience: string
  expiration: BigIntColumn
  capabilities: Json<Capability[]>
  cid: string
  updated_at: Timestamp
}

export interface RevokedDelegationTable {
  cid: string
  did: string
  /** Unix seconds: the row is pruned once the delegation would have expired anyway. */
  expiration: BigIntColumn
  revoked_at: Timestamp
}

export interface UserPreferencesTable {
  did: string
  preferences: Json<Record<string, unknown>>
  updated_at: Timestamp
}

export interface CreditAccountTable { did: string, balance: BigIntColumn, updated_at: Timestamp }
export interface CreditLedgerTable {
  id: Generated<string>
  did: string
  delta: BigIntColumn
  reason: string
  reference: string | null
  created_at: Timestamp
}
export interface CreditClaimTable {
  id: string
  did: string
  amount: BigIntColumn
  status: 'outstanding' | 'paid'
  created_at: Timestamp
  settled_at: Timestamp | null
}

export interface DB {
  oracle_sessions: SessionTable
  oracle_messages: MessageTable
  oracle_tool_approvals: ToolApprovalTable
  oracle_delegations: DelegationTable
  oracle_revoked_delegations: RevokedDelegationTable
  oracle_user_preferences: UserPreferencesTable
  oracle_credit_accounts: CreditAccountTable
  oracle_credit_ledger: CreditLedgerTable
  oracle_credit_claims: CreditClaimTable
}
