import type { Kysely } from 'kysely'
import { createAuditTable } from '@impact/persistence'

// Frozen: never edit once shipped, add a new migration instead.

/** Security-relevant events (key issues and revocations, role changes, votes, refusals, admin requests). */
export async function up (db: Kysely<any>): Promise<void> {
  await createAuditTable(db, 'audit_events')
}

export async function down (db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('audit_events').execute()
}
