import { sql, type Kysely } from 'kysely'

// Frozen. Principals are account DIDs: roles are granted to accounts, and a call made by a
// service for an account (a UCAN invocation) records both the account and the service.

export async function up (db: Kysely<any>): Promise<void> {
  await db.schema.createTable('account_roles')
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull()
      .check(sql`role in ('reader', 'registrar', 'compliance', 'voter', 'admin')`))
    .addColumn('granted_by', 'text', (c) => c.notNull())
    .addColumn('granted_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('account_roles_pk', ['account', 'role'])
    .execute()
  // Keys issued without an account inherited their issuer's, so one account string may stand for
  // several parties. Only an account held by a single live key keeps that key's roles; a shared
  // one gets none until an admin grants them (its keys then read but cannot write).
  await sql`
    insert into account_roles (account, role, granted_by, granted_at)
    select distinct k.account, r.role, 'migration', now()
    from api_keys k cross join lateral unnest(k.roles) as r(role)
    where k.revoked_at is null
      and r.role in ('registrar', 'compliance', 'voter', 'admin')
      and (select count(*) from api_keys o where o.account = k.account and o.revoked_at is null) = 1
  `.execute(db)

  // UCAN callers have no key; the service that invoked for an account is recorded beside it.
  await db.schema.alterTable('domains').alterColumn('created_by_key', (c) => c.dropNotNull()).execute()
  await db.schema.alterTable('domains').addColumn('created_by_service', 'text').execute()
  await db.schema.alterTable('verification_proposals')
    .alterColumn('proposed_by_key', (c) => c.dropNotNull()).execute()
  await db.schema.alterTable('verification_proposals').addColumn('proposed_by_service', 'text').execute()
  await db.schema.alterTable('verification_votes').addColumn('voter_service', 'text').execute()
  await db.schema.alterTable('domain_events').addColumn('actor_service', 'text').execute()
  await db.schema.alterTable('domain_events').dropConstraint('domain_events_actor_kind_check').execute()
  await db.schema.alterTable('domain_events').addCheckConstraint('domain_events_actor_kind_check',
    sql`actor_kind in ('api-key', 'ucan', 'governance', 'system')`).execute()
  // One vote per account: looked up when a vote is cast.
  await db.schema.createIndex('verification_votes_account_idx').on('verification_votes')
    .columns(['proposal_id', 'voter_account']).execute()
}

export async function down (db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('verification_votes_account_idx').execute()
  // Keys stay nullable: rows written by UCAN callers have none.
  await db.updateTable('domain_events').set({ actor_kind: 'api-key' }).where('actor_kind', '=', 'ucan').execute()
  await db.schema.alterTable('domain_events').dropConstraint('domain_events_actor_kind_check').execute()
  await db.schema.alterTable('domain_events').addCheckConstraint('domain_events_actor_kind_check',
    sql`actor_kind in ('api-key', 'governance', 'system')`).execute()
  await db.schema.alterTable('domain_events').dropColumn('actor_service').execute()
  await db.schema.alterTable('verification_votes').dropColumn('voter_service').execute()
  await db.schema.alterTable('verification_proposals').dropColumn('proposed_by_service').execute()
  await db.schema.alterTable('domains').dropColumn('created_by_service').execute()
  await db.schema.dropTable('account_roles').execute()
}
