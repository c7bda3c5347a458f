import { sql, type Kysely } from 'kysely'

// Frozen. A proposal is about a snapshot: the hash (and content) of what it reviews, recorded when it opens.
// Proposal kinds beyond verify (revoke a verification, move validUntil); a verified domain whose reviewed content
// changes is `changed`, one whose verification is revoked `revoked`; a change while a proposal is open supersedes it.

const DOMAIN_STATUSES = ['draft', 'verification_submitted', 'verified', 'rejected', 'expired', 'deactivated']
const PROPOSAL_STATUSES = ['open', 'passed', 'rejected', 'vetoed', 'cancelled']

const list = (values: string[]) => sql.join(values.map((v) => sql.lit(v)))

export async function up (db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('domains').dropConstraint('domains_status_check').execute()
  await db.schema.alterTable('domains').addCheckConstraint('domains_status_check',
    sql`status in (${list([...DOMAIN_STATUSES, 'changed', 'revoked'])})`).execute()
  // The content hash the verification in force approved.
  await db.schema.alterTable('domains').addColumn('verified_hash', 'text').execute()
  // Renewed (or re-proposed after renewal) domains kept the verifiedAt of a verification that no longer applies.
  await sql`update domains set verified_at = null
    where status in ('draft', 'rejected', 'verification_submitted') and verified_at is not null`.execute(db)

  await db.schema.alterTable('verification_proposals')
    .addColumn('kind', 'text', (c) => c.notNull().defaultTo('verify')
      .check(sql`kind in ('verify', 'revoke', 'validity')`))
    // validity: the validUntil the domain gets if it passes.
    .addColumn('valid_until', 'timestamptz')
    .addColumn('snapshot_hash', 'text')
    // The domain's status when it opened: where a superseded verification leaves it.
    .addColumn('prior_status', 'text')
    .execute()
  await db.schema.alterTable('verification_proposals').addCheckConstraint('verification_proposals_validity_kind',
    sql`(kind = 'validity') = (valid_until is not null)`).execute()
  await db.schema.alterTable('verification_proposals').dropConstraint('verification_proposals_status_check').execute()
  await db.schema.alterTable('verification_proposals').addCheckConstraint('verification_proposals_status_check',
    sql`status in (${list([...PROPOSAL_STATUSES, 'superseded'])})`).execute()

  // What each proposal reviews, per domain: the canonical content and its sha-256.
  await db.schema.createTable('proposal_snapshots')
    .addColumn('proposal_id', 'uuid', (c) => c.notNull().references('verification_proposals.id'))
    .addColumn('domain_did', 'text', (c) => c.notNull().references('domains.did'))
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('content', 'jsonb', (c) => c.notNull())
    .addPrimaryKeyConstraint('proposal_snapshots_pk', ['proposal_id', 'domain_did'])
    .execute()
  await db.schema.createIndex('proposal_snapshots_domain_idx').on('proposal_snapshots')
    .columns(['domain_did']).execute()
}

export async function down (db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('proposal_snapshots').execute()
  await db.updateTable('verification_proposals').set({ status: 'cancelled' }).where('status', '=', 'superseded')
    .execute()
  await db.schema.alterTable('verification_proposals').dropConstraint('verification_proposals_status_check').execute()
  await db.schema.alterTable('verification_proposals').addCheckConstraint('verification_proposals_status_check',
    sql`status in (${list(PROPOSAL_STATUSES)})`).execute()
  await db.schema.alterTable('verification_proposals')
    .dropConstraint('verification_proposals_validity_kind').execute()
  await db.schema.alterTable('verification_proposals')
    .dropColumn('prior_status').dropColumn('snapshot_hash').dropColumn('valid_until').dropColumn('kind').execute()

  // Nearest older states: a changed domain is verified content edited, a revoked one a verification that failed.
  await db.updateTable('domains').set({ status: 'draft' }).where('status', '=', 'changed').execute()
  await db.updateTable('domains').set({ status: 'rejected' }).where('status', '=', 'revoked').execute()
  await db.schema.alterTable('domains').dropColumn('verified_hash').execute()
  await db.schema.alterTable('domains').dropConstraint('domains_status_check').execute()
  await db.schema.alterTable('domains').addCheckConstraint('domains_status_check',
    sql`status in (${list(DOMAIN_STATUSES)})`).execute()
}
