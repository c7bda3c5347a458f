import { sql, type Kysely } from 'kysely'

// Frozen: the change feed's transaction ids and the webhook tables. Later changes go in a new migration.

export async function up (db: Kysely<any>): Promise<void> {
  // The writing transaction of each event: identity values are drawn before commit, so the feed orders
  // by (xid, id) and serves only events of transactions older than every one still in flight.
  await sql`alter table domain_events add column xid xid8 not null default pg_current_xact_id()`.execute(db)
  await db.schema.createIndex('domain_events_feed_idx').on('domain_events').columns(['xid', 'id']).execute()

  await db.schema.createTable('webhooks')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', sql`text[]`, (c) => c.notNull())
    // Kept in clear because every delivery is signed with it; never returned after creation.
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_by_key', 'text', (c) => c.notNull())
    .addColumn('created_by_account', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    // The hook's position in the feed: deliveries exist for every matching event up to here.
    // A new hook starts at the oldest transaction in flight, so it gets every event committed after it.
    .addColumn('cursor_xid', sql`xid8`, (c) => c.notNull().defaultTo(sql`pg_snapshot_xmin(pg_current_snapshot())`))
    .addColumn('cursor_id', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute()
  await db.schema.createIndex('webhooks_created_idx').on('webhooks').columns(['created_at', 'id']).execute()

  await db.schema.createTable('webhook_deliveries')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('webhook_id', 'uuid', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('event_id', 'bigint', (c) => c.notNull().references('domain_events.id'))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'delivered', 'failed')`))
    // Attempts since the delivery was (re)queued: the backoff and the attempt budget count these.
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'timestamptz')
    // Set while a worker sends it; another replica claims it only once the lease has run out.
    .addColumn('lease_until', 'timestamptz')
    .addColumn('last_attempt_at', 'timestamptz')
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('delivered_at', 'timestamptz')
    .addUniqueConstraint('webhook_deliveries_event_uq', ['webhook_id', 'event_id'])
    .execute()
  await db.schema.createIndex('webhook_deliveries_due_idx').on('webhook_deliveries').column('next_attempt_at')
    .where(sql.ref('status'), '=', 'pending').execute()
  await db.schema.createIndex('webhook_deliveries_hook_idx').on('webhook_deliveries')
    .columns(['webhook_id', 'created_at', 'id']).execute()

  await db.schema.createTable('webhook_attempts')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('delivery_id', 'uuid', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('at', 'timestamptz', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('webhook_attempts_delivery_idx').on('webhook_attempts')
    .columns(['delivery_id', 'id']).execute()
}

export async function down (db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_attempts').execute()
  await db.schema.dropTable('webhook_deliveries').execute()
  await db.schema.dropTable('webhooks').execute()
  await db.schema.dropIndex('domain_events_feed_idx').execute()
  await db.schema.alterTable('domain_events').dropColumn('xid').execute()
}
