import { sql, type Kysely } from 'kysely'

// Frozen. Where a domain sits in a programme, derived from its links when it is written: its parent, its
// organisation and its project, as columns so listings filter on them and external ids are unique per type
// within an organisation (per class outside any). Also what the listing's new sorts and filters need.

export async function up (db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('domains')
    .addColumn('parent_did', 'text')
    .addColumn('organisation_did', 'text')
    .addColumn('project_did', 'text')
    .execute()
  // Existing links, two levels deep (device → project → organisation), the depth the platform registers.
  await sql`update domains set parent_did = document->'links'->>'parent',
    organisation_did = document->'links'->>'organisation'`.execute(db)
  for (let pass = 0; pass < 2; pass++) {
    await sql`
      update domains d set
        organisation_did = coalesce(d.document->'links'->>'organisation',
          case when p.type = 'dao' or p.type like 'dao/%' then p.did else p.organisation_did end),
        project_did = case when p.type = 'project' then p.did else p.project_did end
      from domains p where p.did = d.parent_did`.execute(db)
  }

  await db.schema.dropIndex('domains_class_external_id_key').execute()
  await db.schema.createIndex('domains_organisation_external_id_key').unique().on('domains')
    .columns(['organisation_did', 'type', 'external_id'])
    .where(sql<boolean>`external_id is not null and organisation_did is not null`)
    .execute()
  await db.schema.createIndex('domains_class_external_id_key').unique().on('domains')
    .columns(['class', 'external_id'])
    .where(sql<boolean>`external_id is not null and organisation_did is null`)
    .execute()
  // Prefix search on external ids whatever the database's collation.
  await sql`create index domains_external_id_prefix_idx on domains (external_id text_pattern_ops)
    where external_id is not null`.execute(db)
  await db.schema.createIndex('domains_organisation_idx').on('domains')
    .columns(['organisation_did', 'created_at', 'did']).where(sql.ref('organisation_did'), 'is not', null).execute()
  await db.schema.createIndex('domains_project_idx').on('domains')
    .columns(['project_did', 'created_at', 'did']).where(sql.ref('project_did'), 'is not', null).execute()
  await db.schema.createIndex('domains_parent_idx').on('domains')
    .column('parent_did').where(sql.ref('parent_did'), 'is not', null).execute()
  await db.schema.createIndex('domains_updated_idx').on('domains').columns(['updated_at', 'did']).execute()

  // A batch registration remembered under its Idempotency-Key: progress per chunk, then the whole answer.
  await db.schema.createTable('domain_batches')
    .addColumn('api_key_id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('results', 'jsonb', (c) => c.notNull())
    .addColumn('complete', 'boolean', (c) => c.notNull())
    .addColumn('lease_token', 'uuid', (c) => c.notNull())
    .addColumn('lease_until', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('domain_batches_pk', ['api_key_id', 'key'])
    .execute()
  await db.schema.createIndex('domain_batches_created_idx').on('domain_batches').column('created_at').execute()
}

export async function down (db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('domain_batches').execute()
  for (const index of ['domains_updated_idx', 'domains_parent_idx', 'domains_project_idx', 'domains_organisation_idx',
    'domains_external_id_prefix_idx', 'domains_class_external_id_key', 'domains_organisation_external_id_key']) {
    await db.schema.dropIndex(index).execute()
  }
  await db.schema.createIndex('domains_class_external_id_key').unique().on('domains')
    .columns(['class', 'external_id'])
    .where(sql.ref('external_id'), 'is not', null)
    .execute()
  await db.schema.alterTable('domains')
    .dropColumn('project_did').dropColumn('organisation_did').dropColumn('parent_did')
    .execute()
}
