import type { Kysely } from 'kysely'
import { createAuditTable } from '@impact/persistence'

// Frozen: never edit once shipped, add a new migration instead.

/** Security-relevant events (delegations stored and revoked, approvals, refused credentials, operator reads). */
export async function up (db: Kysely<any>): Promise<void> {
  await createAuditTable(db, 'oracle_audit_events')
}

export async function down (db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('oracle_audit_events').execute()
}
