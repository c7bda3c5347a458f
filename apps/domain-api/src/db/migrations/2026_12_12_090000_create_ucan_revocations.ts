import type { Kysely } from 'kysely'

// Frozen. Revoked UCANs by CID, kept until the revoked UCAN expires (after that it is refused anyway).

export async function up (db: Kysely<any>): Promise<void> {
  await db.schema.createTable('ucan_revocations')
    .addColumn('cid', 'text', (c) => c.primaryKey())
    .addColumn('revoked_by', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('ucan_revocations_expires_idx').on('ucan_revocations').column('expires_at').execute()
}

export async function down (db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('ucan_revocations').execute()
}
