import { sql, type Kysely } from 'kysely'

// Frozen: tool calls waiting for the user's approval, with what resuming their turn needs.
export async function up (db: Kysely<any>): Promise<void> {
  await db.schema.createTable('oracle_tool_approvals')
    .addColumn('session_id', 'text', (c) => c.notNull().references('oracle_sessions.id').onDelete('cascade'))
    .addColumn('tool_call_id', 'text', (c) => c.notNull())
    .addColumn('did', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('tool_name', 'text', (c) => c.notNull())
    .addColumn('args', 'jsonb', (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('pending', 'approved', 'denied', 'expired', 'cancelled')`))
    .addColumn('reason', 'text')
    .addColumn('holder', 'text')
    .addColumn('turn', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('decided_at', 'timestamptz')
    .addColumn('settled_at', 'timestamptz')
    .addPrimaryKeyConstraint('oracle_tool_approvals_pk', ['session_id', 'tool_call_id'])
    .execute()
  // Open approvals (history lists them; a new turn or the sweep settles them) are few: a partial index.
  await db.schema.createIndex('oracle_tool_approvals_unsettled')
    .on('oracle_tool_approvals').columns(['session_id', 'created_at'])
    .where(sql.ref('settled_at'), 'is', null)
    .execute()
}

export async function down (db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('oracle_tool_approvals').ifExists().execute()
}
