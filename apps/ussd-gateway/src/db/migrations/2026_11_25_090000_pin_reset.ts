import type { Kysely } from 'kysely'

// Frozen: never edit once shipped, add a new migration instead.

/**
 * `pin_reset_expires_at`: set when support issued a temporary PIN (the stored PIN is then that
 * one); it is good until that time and only for choosing a new PIN, which clears the column.
 * `pin_version`: counts the PINs an account has had (chosen or issued by support, not reseals);
 * a session remembers the one it proved, so a change or reset elsewhere ends its use of the account.
 */
export async function up (db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('ussd_accounts')
    .addColumn('pin_reset_expires_at', 'timestamptz')
    .addColumn('pin_version', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()
}

export async function down (db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('ussd_accounts').dropColumn('pin_version').dropColumn('pin_reset_expires_at').execute()
}
