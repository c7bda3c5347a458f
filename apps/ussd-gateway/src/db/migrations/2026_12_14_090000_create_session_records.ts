import { sql, type Kysely } from 'kysely'

// Frozen: never edit once shipped, add a new migration instead.

/**
 * One row per ended USSD session, for the drop-off report: where it was (`last_state`, a state name, never
 * a screen text, input or PIN), how it ended (`end_reason`: our END, the user or aggregator, or a timeout),
 * and the aggregator's `status` and `cost` once its end-of-session notification arrives. No phone number.
 * A session is its aggregator id and start time, so recording it twice keeps one row.
 */
export async function up (db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('ussd_session_records')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('service_code', 'text', (c) => c.notNull())
    .addColumn('network_code', 'text')
    .addColumn('hops', 'integer', (c) => c.notNull().check(sql`hops >= 0`))
    .addColumn('last_state', 'text', (c) => c.notNull())
    .addColumn('end_reason', 'text', (c) => c.notNull().check(sql`end_reason in ('end', 'user', 'timeout')`))
    .addColumn('started_at', 'timestamptz', (c) => c.notNull())
    .addColumn('ended_at', 'timestamptz', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull().check(sql`duration_ms >= 0`))
    .addColumn('aggregator_status', 'text')
    .addColumn('aggregator_cost', 'text')
    .addUniqueConstraint('ussd_session_records_session_key', ['session_id', 'started_at'])
    .execute()
  // The report reads a day of records; the retention sweep deletes the oldest.
  await db.schema.createIndex('ussd_session_records_ended_at_idx').on('ussd_session_records').column('ended_at')
    .execute()
}

export async function down (db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('ussd_session_records').execute()
}
