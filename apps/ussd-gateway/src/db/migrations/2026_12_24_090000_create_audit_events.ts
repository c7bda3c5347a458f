import type { Kysely } from 'kysely'
import { createAuditTable } from '@impact/persistence'

// Frozen: never edit once shipped, add a new migration instead.

/** Security-relevant events (PIN logins and failures, lockouts, resets, role changes, operator requests). */
export async function up (db: Kysely<any>): Promise<void> {
  await createAuditTable(db, 'ussd_audit_events')
}

export async function down (db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('ussd_audit_events').execute()
}
