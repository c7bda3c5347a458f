import type { MigrationSet } from '@impact/persistence'
import * as createChatTables from './2026_11_21_170000_create_chat_tables.ts'
import * as createCreditTables from './2026_11_21_170100_create_credit_tables.ts'
import * as orderSessionsByActivity from './2026_11_22_020000_order_sessions_by_activity.ts'
import * as createRevokedDelegations from './2026_11_30_120000_create_revoked_delegations.ts'
import * as createToolApprovals from './2026_12_02_090000_create_tool_approvals.ts'
import * as createAuditEvents from './2026_12_24_090000_create_audit_events.ts'

/** Frozen migrations of oracle-runtime, applied in name order. Never edit one that has shipped; add a new one. */
export const migrations: MigrationSet = {
  '2026_11_21_170000_create_chat_tables': createChatTables,
  '2026_11_21_170100_create_credit_tables': createCreditTables,
  '2026_11_22_020000_order_sessions_by_activity': orderSessionsByActivity,
  '2026_11_30_120000_create_revoked_delegations': createRevokedDelegations,
  '2026_12_02_090000_create_tool_approvals': createToolApprovals,
  '2026_12_24_090000_create_audit_events': createAuditEvents
}
