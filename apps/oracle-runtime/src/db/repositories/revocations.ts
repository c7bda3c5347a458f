import type { Kysely } from 'kysely'
import type { DB } from '../types.ts'

export interface Revocation { cid: string, did: string, expiration: number }

const nowSeconds = () => Math.floor(Date.now() / 1000)

/** Records revocations; revoking a CID again changes nothing. */
export async function insertRevocations (db: Kysely<DB>, revocations: Revocation[]): Promise<void> {
  if (revocations.length === 0) return
  await db.insertInto('oracle_revoked_delegations').values(revocations)
    .onConflict((oc) => oc.column('cid').doNothing()).execute()
}

/** Which of these CIDs are revoked and not yet expired. */
export async function findRevoked (db: Kysely<DB>, cids: string[]): Promise<string[]> {
  if (cids.length === 0) return []
  const rows = await db.selectFrom('oracle_revoked_delegations').select('cid')
    .where('cid', 'in', cids).where('expiration', '>', nowSeconds()).execute()
  return rows.map((row) => row.cid)
}

/** Live revocations in CID order, a page at a time (`after` is the last CID of the previous page). */
export async function listRevocations (db: Kysely<DB>, after: string, limit: number): Promise<Revocation[]> {
  const rows = await db.selectFrom('oracle_revoked_delegations').select(['cid', 'did', 'expiration'])
    .where('cid', '>', after).where('expiration', '>', nowSeconds()).orderBy('cid').limit(limit).execute()
  return rows.map((row) => ({ cid: row.cid, did: row.did, expiration: Number(row.expiration) }))
}

/** Live revocations recorded since `since` (by any replica). */
export async function listRevokedSince (db: Kysely<DB>, since: Date): Promise<Revocation[]> {
  const rows = await db.selectFrom('oracle_revoked_delegations').select(['cid', 'did', 'expiration'])
    .where('revoked_at', '>=', since).where('expiration', '>', nowSeconds()).execute()
  return rows.map((row) => ({ cid: row.cid, did: row.did, expiration: Number(row.expiration) }))
}

/** Drops revocations of delegations expired before `before` (Unix seconds): they are refused as expired anyway. */
export async function pruneRevocations (db: Kysely<DB>, before: number): Promise<number> {
  const result = await db.deleteFrom('oracle_revoked_delegations').where('expiration', '<=', before).executeTakeFirst()
  return Number(result.numDeletedRows)
}
