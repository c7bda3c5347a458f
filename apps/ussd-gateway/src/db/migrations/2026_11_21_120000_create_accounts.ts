import { sql, type Kysely } from 'kysely'

// Frozen: never edit once shipped, add a new migration instead.

export async function up (db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('ussd_accounts')
    .addColumn('customer_id', 'text', (c) => c.primaryKey())
    .addColumn('phone_number', 'text', (c) => c.notNull())
    .addColumn('full_name', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('pin_record', 'text', (c) => c.notNull())
    .addColumn('pin_key_id', 'text', (c) => c.notNull())
    .addColumn('pin_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active').check(sql`status in ('active', 'locked')`))
    .addColumn('locked_reason', 'text')
    .addColumn('locked_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema.createIndex('ussd_accounts_phone_number_idx').on('ussd_accounts').column('phone_number').execute()
  // Rotation jobs look records up by the key that sealed them.
  await db.schema.createIndex('ussd_accounts_pin_key_id_idx').on('ussd_accounts').column('pin_key_id').execute()

  await db.schema
    .createTable('ussd_phone_preferences')
    .addColumn('phone_number', 'text', (c) => c.primaryKey())
    .addColumn('language', 'text', (c) => c.notNull().check(sql`language in ('en', 'sw')`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
}

export async function down (db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('ussd_phone_preferences').execute()
  await db.schema.dropTable('ussd_accounts').execute()
}
