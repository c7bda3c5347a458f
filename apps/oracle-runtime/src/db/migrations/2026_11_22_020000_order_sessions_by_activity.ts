import { sql, type Kysely } from 'kysely'

// Frozen: a strictly increasing activity number per session, for "newest activity first".
// Timestamps tie when two sessions change within the clock's resolution (a millisecond in the
// embedded engine and in the app's own clock), and a tie fell back on the random id.
export async function up (db: Kysely<any>): Promise<void> {
  await sql`create sequence oracle_sessions_activity`.execute(db)
  await db.schema.alterTable('oracle_sessions').addColumn('activity', 'bigint').execute()
  // Existing sessions keep their order: numbered by last activity, ties by creation then id.
  await sql`
    update oracle_sessions s set activity = o.n
    from (select id, row_number() over (order by last_updated_at, created_at, id) as n from oracle_sessions) o
    where s.id = o.id`.execute(db)
  await sql`select setval('oracle_sessions_activity', coalesce((select max(activity) from oracle_sessions), 0) + 1, false)`.execute(
    db
  )
  await sql`alter table oracle_sessions alter column activity set default nextval('oracle_sessions_activity'), alter column activity set not null`.execute(
    db
  )
  await db.schema.dropIndex('oracle_sessions_did_updated').execute()
  await db.schema
    .createIndex('oracle_sessions_did_activity')
    .on('oracle_sessions')
    .columns(['did', 'activity desc'])
    .execute()
}

export async function down (db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('oracle_sessions_did_activity').execute()
  await db.schema
    .createIndex('oracle_sessions_did_updated')
    .on('oracle_sessions')
    .columns(['did', 'last_updated_at desc', 'id'])
    .execute()
  await db.schema.alterTable('oracle_sessions').dropColumn('activity').execute()
  await sql`drop sequence oracle_sessions_activity`.execute(db)
}
