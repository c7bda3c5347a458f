import { sql, type Kysely } from 'kysely'

// Frozen. An identifier from outside the registry (a device's serial number), unique among the domains of
// one class, so a second registration of the same device is refused and the device is found by it.

export async function up (db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('domains').addColumn('external_id', 'text').execute()
  await db.schema.createIndex('domains_class_external_id_key').unique().on('domains')
    .columns(['class', 'external_id'])
    .where(sql.ref('external_id'), 'is not', null)
    .execute()
}

export async function down (db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('domains_class_external_id_key').execute()
  await db.schema.alterTable('domains').dropColumn('external_id').execute()
}
