import { sql, type Kysely } from 'kysely'

// Frozen: balances, the ledger of every change, and payment claims of the credits plugin.
export async function up (db: Kysely<any>): Promise<void> {
  await db.schema.createTable('oracle_credit_accounts')
    .addColumn('did', 'text', (c) => c.primaryKey())
    .addColumn('balance', 'bigint', (c) => c.notNull().check(sql`balance >= 0`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema.createTable('oracle_credit_ledger')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('did', 'text', (c) => c.notNull())
    .addColumn('delta', 'bigint', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('reference', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema.createIndex('oracle_credit_ledger_did').on('oracle_credit_ledger').columns(['did', 'id']).execute()
  await db.schema.createTable('oracle_credit_claims')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('did', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull().check(sql`amount > 0`))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('outstanding', 'paid')`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('settled_at', 'timestamptz')
    .execute()
  await db.schema
    .createIndex('oracle_credit_claims_did_status')
    .on('oracle_credit_claims')
    .columns(['did', 'status'])
    .execute()
}

export async function down (db: Kysely<any>): Promise<void> {
  for (const table of ['oracle_credit_claims', 'oracle_credit_ledger', 'oracle_credit_accounts']) {
    await db.schema.dropTable(table).ifExists().execute()
  }
}
