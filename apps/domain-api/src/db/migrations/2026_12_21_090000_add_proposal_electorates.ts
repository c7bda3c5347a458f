import { sql, type Kysely } from 'kysely'

// Frozen. Each proposal records its electorate when it opens (accounts holding the voter role then, or a named
// council, and the vetoers); a vote belongs to one account and may be changed while the proposal is open, every
// ballot kept; quorum may be a share of the electorate; a vetoer's veto rejects at once.

export async function up (db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('account_roles').dropConstraint('account_roles_role_check').execute()
  await db.schema.alterTable('account_roles').addCheckConstraint('account_roles_role_check',
    sql`role in ('reader', 'registrar', 'compliance', 'voter', 'vetoer', 'admin')`).execute()

  await db.schema.createTable('verification_electorates')
    .addColumn('proposal_id', 'uuid', (c) => c.notNull().references('verification_proposals.id'))
    .addColumn('account', 'text', (c) => c.notNull())
    // voter: may vote yes, no or abstain (and counts in the electorate's size); vetoer: may veto.
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('voter', 'vetoer')`))
    .addPrimaryKeyConstraint('verification_electorates_pk', ['proposal_id', 'account', 'role'])
    .execute()
  // "Proposals I may vote on": looked up by account.
  await db.schema.createIndex('verification_electorates_account_idx').on('verification_electorates')
    .columns(['account', 'proposal_id']).execute()

  await db.schema.alterTable('verification_proposals')
    .addColumn('electorate_source', 'text', (c) => c.notNull().defaultTo('legacy')
      .check(sql`electorate_source in ('voter-role', 'council', 'legacy')`))
    .addColumn('electorate_size', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('electorate_vetoers', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('quorum_rule', 'text')
    .addColumn('veto', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()
  await sql`update verification_proposals set quorum_rule = quorum::text`.execute(db)
  await db.schema.alterTable('verification_proposals').alterColumn('quorum_rule', (c) => c.setNotNull()).execute()
  await db.schema.alterTable('verification_proposals').dropConstraint('verification_proposals_status_check').execute()
  await db.schema.alterTable('verification_proposals').addCheckConstraint('verification_proposals_status_check',
    sql`status in ('open', 'passed', 'rejected', 'vetoed', 'cancelled')`).execute()

  // Ballots: every vote cast is kept; a change supersedes the account's previous ballot.
  await db.schema.alterTable('verification_votes').dropConstraint('verification_votes_pk').execute()
  await sql`alter table verification_votes add column id bigint generated always as identity primary key`.execute(db)
  await db.schema.alterTable('verification_votes')
    .addColumn('rationale', 'text')
    .addColumn('superseded_at', 'timestamptz')
    .execute()
  await db.schema.alterTable('verification_votes').dropConstraint('verification_votes_vote_check').execute()
  await db.schema.alterTable('verification_votes').addCheckConstraint('verification_votes_vote_check',
    sql`vote in ('yes', 'no', 'abstain', 'veto')`).execute()
  // Votes of one account through several keys, from before votes were per account: the latest stands.
  await sql`
    update verification_votes v set superseded_at = later.next_at
    from (
      select id, lead(cast_at) over (partition by proposal_id, voter_account order by cast_at, id) as next_at
      from verification_votes
    ) later
    where later.id = v.id and later.next_at is not null
  `.execute(db)
  await db.schema.createIndex('verification_votes_current_key').unique().on('verification_votes')
    .columns(['proposal_id', 'voter_account'])
    .where(sql.ref('superseded_at'), 'is', null)
    .execute()

  // Open proposals get the electorate they would have had: today's voters, less the domain's controllers and the
  // proposer, plus whoever already voted. Closed ones keep 'legacy': their voters are the accounts that voted.
  await sql`
    update verification_proposals set electorate_source = 'voter-role'
    where status = 'open'
  `.execute(db)
  await sql`
    insert into verification_electorates (proposal_id, account, role)
    select p.id, r.account, 'voter'
    from verification_proposals p
    join domains d on d.did = p.domain_did
    join account_roles r on r.role = 'voter'
    where p.status = 'open' and r.account <> p.proposed_by_account and not (r.account = any(d.controllers))
    union
    select distinct v.proposal_id, v.voter_account, 'voter'
    from verification_votes v
  `.execute(db)
  await sql`
    update verification_proposals p
    set electorate_size = (select count(*) from verification_electorates e where e.proposal_id = p.id)
  `.execute(db)
}

export async function down (db: Kysely<any>): Promise<void> {
  await db.deleteFrom('verification_votes').where('vote', '=', 'veto').execute()
  await db.deleteFrom('verification_votes').where('superseded_at', 'is not', null).execute()
  await db.schema.dropIndex('verification_votes_current_key').execute()
  await db.schema.alterTable('verification_votes').dropConstraint('verification_votes_vote_check').execute()
  await db.schema.alterTable('verification_votes').addCheckConstraint('verification_votes_vote_check',
    sql`vote in ('yes', 'no', 'abstain')`).execute()
  await db.schema.alterTable('verification_votes').dropColumn('superseded_at').dropColumn('rationale').execute()
  await db.schema.alterTable('verification_votes').dropColumn('id').execute()
  await db.schema.alterTable('verification_votes')
    .addPrimaryKeyConstraint('verification_votes_pk', ['proposal_id', 'voter_key']).execute()

  await db.updateTable('verification_proposals').set({ status: 'rejected' }).where('status', '=', 'vetoed').execute()
  await db.schema.alterTable('verification_proposals').dropConstraint('verification_proposals_status_check').execute()
  await db.schema.alterTable('verification_proposals').addCheckConstraint('verification_proposals_status_check',
    sql`status in ('open', 'passed', 'rejected', 'cancelled')`).execute()
  await db.schema.alterTable('verification_proposals')
    .dropColumn('veto').dropColumn('quorum_rule')
    .dropColumn('electorate_vetoers').dropColumn('electorate_size').dropColumn('electorate_source')
    .execute()
  await db.schema.dropTable('verification_electorates').execute()

  await db.deleteFrom('account_roles').where('role', '=', 'vetoer').execute()
  await db.schema.alterTable('account_roles').dropConstraint('account_roles_role_check').execute()
  await db.schema.alterTable('account_roles').addCheckConstraint('account_roles_role_check',
    sql`role in ('reader', 'registrar', 'compliance', 'voter', 'admin')`).execute()
}
