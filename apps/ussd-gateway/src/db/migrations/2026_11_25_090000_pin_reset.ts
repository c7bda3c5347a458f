import type { Kysely } from 'kysely'

// Frozen: never edit once shipped, add a new migration instead.

/**
 * `pin_reset_expires_at`: set when support issued a temporary PIN (the stored PIN is then that
 * one); it is good until that time and only for choosing a new PIN, which clears the column.
 */
export async function up (db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('ussd_accounts').addColumn('pin_reset_expires_at', 'timestamptz').execute()
}

export async function down (db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('ussd_accounts').dropColumn('pin_reset_expires_at').execute()
}
