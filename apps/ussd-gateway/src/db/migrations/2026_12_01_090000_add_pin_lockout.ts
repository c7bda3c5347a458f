import { sql, type Kysely } from 'kysely'

// Frozen: never edit once shipped, add a new migration instead.

/**
 * Lockouts end: `locked_until` is when a lock lifts (a locked account always has one) and
 * `lockouts` counts the lockouts since the last successful login, so each cool-down is longer.
 * `previous_pin_record`: the user's PIN (sealed) before support issued a temporary one; the new
 * PIN chosen after the reset must differ from it. Accounts locked before this migration get the
 * first cool-down (15 minutes, the default) from the time they were locked.
 */
export async function up (db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('ussd_accounts')
    .addColumn('locked_until', 'timestamptz')
    .addColumn('lockouts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('previous_pin_record', 'text')
    .execute()
  await db.updateTable('ussd_accounts')
    .set({ locked_until: sql`coalesce(locked_at, now()) + interval '15 minutes'`, lockouts: 1 })
    .where('status', '=', 'locked')
    .execute()
  await db.schema.alterTable('ussd_accounts')
    .addCheckConstraint('ussd_accounts_lock_ends', sql`status <> 'locked' or locked_until is not null`)
    .execute()
}

export async function down (db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('ussd_accounts').dropConstraint('ussd_accounts_lock_ends').execute()
  await db.schema.alterTable('ussd_accounts')
    .dropColumn('previous_pin_record')
    .dropColumn('lockouts')
    .dropColumn('locked_until')
    .execute()
}
