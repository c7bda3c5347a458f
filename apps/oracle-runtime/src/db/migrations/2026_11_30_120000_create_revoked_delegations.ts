import { sql, type Kysely } from 'kysely'

// Frozen: CIDs of revoked delegations, kept until the delegation would have expired anyway.
export async function up (db: Kysely<any>): Promise<void> {
  await db.schema.createTable('oracle_revoked_delegations')
    .addColumn('cid', 'text', (c) => c.primaryKey())
    .addColumn('did', 'text', (c) => c.notNull())
    .addColumn('expiration', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema.createIndex('oracle_revoked_delegations_expiration')
    .on('oracle_revoked_delegations').column('expiration').execute()
  await db.schema.createIndex('oracle_revoked_delegations_revoked_at')
    .on('oracle_revoked_delegations').column('revoked_at').execute()
}

export async function down (db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('oracle_revoked_delegations').ifExists().execute()
}
