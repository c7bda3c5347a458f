import { sql, type Kysely } from 'kysely'

// Frozen. Tenancy: accounts, API keys and webhooks belong to an organisation (an organisation domain's DID).
// Rows without one stay as they were: platform-wide, which gives access beyond public data only to admins.

export async function up (db: Kysely<any>): Promise<void> {
  // An account's organisation, assigned by an admin; an account without a row belongs to none.
  await db.schema.createTable('account_organisations')
    .addColumn('account', 'text', (c) => c.primaryKey())
    .addColumn('organisation_did', 'text', (c) => c.notNull())
    .addColumn('assigned_by', 'text', (c) => c.notNull())
    .addColumn('assigned_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await db.schema.alterTable('api_keys').addColumn('organisation_did', 'text').execute()
  await db.schema.createIndex('api_keys_organisation_idx').on('api_keys')
    .columns(['organisation_did', 'created_at', 'id']).where(sql.ref('organisation_did'), 'is not', null).execute()
  await db.schema.alterTable('webhooks').addColumn('organisation_did', 'text').execute()
}

export async function down (db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhooks').dropColumn('organisation_did').execute()
  await db.schema.dropIndex('api_keys_organisation_idx').execute()
  await db.schema.alterTable('api_keys').dropColumn('organisation_did').execute()
  await db.schema.dropTable('account_organisations').execute()
}
