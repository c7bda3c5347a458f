import type { Kysely } from 'kysely'
import type { DB } from './types.ts'

export interface UcanRevocation { cid: string, revokedBy: string, revokedAt: Date, expiresAt: Date }

/** Records a revocation; revoking a CID again keeps the first record. */
export async function insertUcanRevocation (db: Kysely<DB>, revocation: UcanRevocation): Promise<void> {
  await db.insertInto('ucan_revocations')
    .values({
      cid: revocation.cid,
      revoked_by: revocation.revokedBy,
      revoked_at: revocation.revokedAt,
      expires_at: revocation.expiresAt
    })
    .onConflict((oc) => oc.column('cid').doNothing())
    .execute()
}

/** Whether any of these CIDs (a token and the proofs in it) has been revoked. */
export async function anyUcanRevoked (db: Kysely<DB>, cids: string[]): Promise<boolean> {
  if (cids.length === 0) return false
  const row = await db.selectFrom('ucan_revocations').select('cid').where('cid', 'in', cids).limit(1)
    .executeTakeFirst()
  return row !== undefined
}

/** Forgets revocations of UCANs that expired before `before`; returns how many. */
export async function deleteExpiredUcanRevocations (db: Kysely<DB>, before: Date): Promise<number> {
  const result = await db.deleteFrom('ucan_revocations').where('expires_at', '<', before).executeTakeFirst()
  return Number(result.numDeletedRows)
}
