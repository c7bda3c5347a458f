import { sql, type Kysely } from 'kysely'

// Frozen. A collection proposal verifies the domains of a project in one vote, each member with its own snapshot;
// a member whose content changes (or that expires, or is deactivated) while it is open is withdrawn from it alone.

export async function up (db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('verification_proposals').dropConstraint('verification_proposals_kind_check').execute()
  await db.schema.alterTable('verification_proposals').addCheckConstraint('verification_proposals_kind_check',
    sql`kind in ('verify', 'revoke', 'validity', 'collection')`).execute()
  // collection: how many domains it covered when it opened.
  await db.schema.alterTable('verification_proposals').addColumn('member_count', 'integer').execute()

  await db.schema.alterTable('proposal_snapshots')
    // Where a withdrawn member goes back to: its status and latest proposal when the collection opened.
    .addColumn('prior_status', 'text')
    .addColumn('prior_proposal_id', 'uuid')
    .addColumn('withdrawn_at', 'timestamptz')
    .addColumn('withdrawn_reason', 'text')
    .execute()
  // Open collections past their deadline, for the sweep.
  await db.schema.createIndex('proposals_open_collection_idx').on('verification_proposals')
    .column('deadline').where(sql<boolean>`status = 'open' and kind = 'collection'`).execute()
}

export async function down (db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('proposals_open_collection_idx').execute()
  await db.schema.alterTable('proposal_snapshots')
    .dropColumn('withdrawn_reason').dropColumn('withdrawn_at').dropColumn('prior_proposal_id')
    .dropColumn('prior_status')
    .execute()
  // Kept as closed proposals on their project: ballots and member snapshots stay referenced.
  await db.updateTable('verification_proposals').set({ status: 'cancelled' })
    .where('kind', '=', 'collection').where('status', '=', 'open').execute()
  await db.updateTable('verification_proposals').set({ kind: 'verify' }).where('kind', '=', 'collection').execute()
  await db.schema.alterTable('verification_proposals').dropColumn('member_count').execute()
  await db.schema.alterTable('verification_proposals').dropConstraint('verification_proposals_kind_check').execute()
  await db.schema.alterTable('verification_proposals').addCheckConstraint('verification_proposals_kind_check',
    sql`kind in ('verify', 'revoke', 'validity')`).execute()
}
