import { sql, type Kysely } from 'kysely'

// Frozen: sessions, messages, delegations and user preferences of oracle-runtime.
export async function up (db: Kysely<any>): Promise<void> {
  await db.schema.createTable('oracle_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('did', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('oracle_name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema
    .createIndex('oracle_sessions_did_updated')
    .on('oracle_sessions')
    .columns(['did', 'last_updated_at desc', 'id'])
    .execute()

  await db.schema.createTable('oracle_messages')
    .addColumn('seq', 'bigserial', (c) => c.primaryKey())
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('session_id', 'text', (c) => c.notNull().references('oracle_sessions.id').onDelete('cascade'))
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('human', 'ai')`))
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('tool_calls', 'jsonb')
    .addColumn('reasoning', 'text')
    .addColumn('attachments', 'jsonb')
    .addColumn('metadata', 'jsonb')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema
    .createIndex('oracle_messages_session_seq')
    .on('oracle_messages')
    .columns(['session_id', 'seq'])
    .execute()

  await db.schema.createTable('oracle_delegations')
    .addColumn('did', 'text', (c) => c.primaryKey())
    .addColumn('raw', 'text', (c) => c.notNull())
    .addColumn('audience', 'text', (c) => c.notNull())
    .addColumn('expiration', 'bigint', (c) => c.notNull())
    .addColumn('capabilities', 'jsonb', (c) => c.notNull())
    .addColumn('cid', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()

  await db.schema.createTable('oracle_user_preferences')
    .addColumn('did', 'text', (c) => c.primaryKey())
    .addColumn('preferences', 'jsonb', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
}

export async function down (db: Kysely<any>): Promise<void> {
  for (const table of ['oracle_user_preferences', 'oracle_delegations', 'oracle_messages', 'oracle_sessions']) {
    await db.schema.dropTable(table).ifExists().execute()
  }
}
