import { sql, type Kysely } from 'kysely'

// Frozen: never edit once shipped, add a new migration instead.

/**
 * Every account is a platform identity: `did` is its did:key, whose Ed25519 private key is kept in
 * `signing_key_record`, sealed like PINs under the key `signing_key_id` names (for rotation). The three
 * are set together; accounts created before this migration have none until their next login.
 * `roles`: what the account may do in the menus (`household`, `agent`), set by operators.
 */
export async function up (db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('ussd_accounts')
    .addColumn('did', 'text')
    .addColumn('signing_key_record', 'text')
    .addColumn('signing_key_id', 'text')
    .addColumn('roles', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{household}'::text[]`))
    .execute()
  await db.schema.alterTable('ussd_accounts').addUniqueConstraint('ussd_accounts_did_key', ['did']).execute()
  await db.schema.alterTable('ussd_accounts')
    .addCheckConstraint('ussd_accounts_identity_whole', sql`(did is null) = (signing_key_record is null)
      and (did is null) = (signing_key_id is null)`)
    .execute()
  // Rotation jobs look keys up by the key that sealed them, as for PINs.
  await db.schema.createIndex('ussd_accounts_signing_key_id_idx').on('ussd_accounts').column('signing_key_id')
    .execute()
}

export async function down (db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('ussd_accounts_signing_key_id_idx').execute()
  await db.schema.alterTable('ussd_accounts').dropConstraint('ussd_accounts_identity_whole').execute()
  await db.schema.alterTable('ussd_accounts').dropConstraint('ussd_accounts_did_key').execute()
  await db.schema.alterTable('ussd_accounts')
    .dropColumn('roles')
    .dropColumn('signing_key_id')
    .dropColumn('signing_key_record')
    .dropColumn('did')
    .execute()
}
