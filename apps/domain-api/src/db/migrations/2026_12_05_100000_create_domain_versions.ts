import { sql, type Kysely } from 'kysely'

// Frozen: DID documents (what registration adds to a domain's document) and their version history.

export async function up (db: Kysely<any>): Promise<void> {
  // Device keys, services, alsoKnownAs and links given at registration, as validated by the API.
  await db.schema.alterTable('domains')
    .addColumn('document', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .execute()

  // One row per change of a domain, written in the transaction of the change: the public state
  // the DID document and its metadata are built from (never the private metadata).
  await db.schema.createTable('domain_versions')
    .addColumn('did', 'text', (c) => c.notNull().references('domains.did'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('at', 'timestamptz', (c) => c.notNull())
    .addColumn('snapshot', 'jsonb', (c) => c.notNull())
    .addPrimaryKeyConstraint('domain_versions_pk', ['did', 'version'])
    .execute()
  await db.schema.createIndex('domain_versions_at_idx').on('domain_versions').columns(['did', 'at']).execute()

  // Domains registered before history was kept get one version, valid from their creation.
  await sql`
    insert into domain_versions (did, version, at, snapshot)
    select d.did, 1, d.created_at, jsonb_build_object(
      'type', d.type, 'class', d.class, 'controllers', to_jsonb(d.controllers), 'status', d.status,
      'validFrom', d.valid_from, 'validUntil', d.valid_until, 'createdAt', d.created_at, 'updatedAt', d.updated_at,
      'verifiedAt', d.verified_at, 'deactivatedAt', d.deactivated_at, 'document', d.document)
    from domains d
  `.execute(db)
}

export async function down (db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('domain_versions').execute()
  await db.schema.alterTable('domains').dropColumn('document').execute()
}
