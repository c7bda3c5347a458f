import type { Kysely } from 'kysely'

// Frozen: never edit once shipped, add a new migration instead.

/** The trace of the request that wrote an event, continued by its webhook deliveries. */
export async function up (db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('domain_events').addColumn('traceparent', 'text').execute()
}

export async function down (db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('domain_events').dropColumn('traceparent').execute()
}
