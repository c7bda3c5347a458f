import type { Kysely } from 'kysely'

// Frozen: never edit once shipped, add a new migration instead.

/**
 * `creation_key`: drawn when a session's sign-up reaches its PIN and kept in the session, so a
 * retried final hop finds the account it created instead of creating a second one. Unique; null
 * for accounts created before this migration.
 */
export async function up (db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('ussd_accounts').addColumn('creation_key', 'text').execute()
  await db.schema.alterTable('ussd_accounts')
    .addUniqueConstraint('ussd_accounts_creation_key_key', ['creation_key'])
    .execute()
}

export async function down (db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('ussd_accounts').dropConstraint('ussd_accounts_creation_key_key').execute()
  await db.schema.alterTable('ussd_accounts').dropColumn('creation_key').execute()
}
