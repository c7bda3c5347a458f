import type { Insertable, Kysely, Transaction } from 'kysely'
import type { ApiKeyRow, ApiKeysTable, DB } from './types.ts'

type Db = Kysely<DB> | Transaction<DB>

export async function insertApiKey (db: Db, key: Insertable<ApiKeysTable>): Promise<ApiKeyRow> {
  return await db.insertInto('api_keys').values(key).returningAll().executeTakeFirstOrThrow()
}

export async function findApiKeyByHash (db: Db, hash: string): Promise<ApiKeyRow | undefined> {
  return await db.selectFrom('api_keys').selectAll().where('key_hash', '=', hash).executeTakeFirst()
}

export async function findApiKey (db: Db, id: string): Promise<ApiKeyRow | undefined> {
  return await db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst()
}

/** Marks a key revoked; resolves the row, or undefined when no such key exists. Revoking twice keeps the first time. */
export async function revokeApiKey (db: Db, id: string, by: string, at: Date): Promise<ApiKeyRow | undefined> {
  const revoked = await db.updateTable('api_keys').set({ revoked_at: at, revoked_by: by })
    .where('id', '=', id).where('revoked_at', 'is', null)
    .returningAll().executeTakeFirst()
  return revoked ?? await findApiKey(db, id)
}

/**
 * Keys oldest first, after the keyset position `after` ([createdAt, id]); with `organisation`, those acting in it
 * (bound to it, or bound to none and of an account that belongs to it).
 */
export async function listApiKeys (
  db: Db,
  after: [Date, string] | undefined,
  limit: number,
  organisation: string | null = null
): Promise<ApiKeyRow[]> {
  let query = db.selectFrom('api_keys').selectAll()
  if (organisation !== null) {
    query = query.where((eb) => eb.or([
      eb('organisation_did', '=', organisation),
      eb.and([
        eb('organisation_did', 'is', null),
        eb('account', 'in', eb.selectFrom('account_organisations').select('account')
          .where('organisation_did', '=', organisation))
      ])
    ]))
  }
  if (after !== undefined) {
    query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '>', eb.tuple(after[0], after[1])))
  }
  return await query.orderBy('created_at').orderBy('id').limit(limit).execute()
}
