import { sql, type Kysely, type Transaction } from 'kysely'
import type { DB } from './types.ts'

type Db = Kysely<DB> | Transaction<DB>

/** A batch registration remembered under its Idempotency-Key (per API key), with a lease on running it. */

export interface BatchClaim {
  apiKeyId: string
  key: string
  fingerprint: string
  total: number
  token: string
  leaseUntil: Date
  createdAt: Date
}

/**
 * Claims the key for a new run: inserts it, or takes over a claim older than `retentionMs` (forgotten, as
 * single creates forget theirs). False when the key is held.
 */
export async function insertBatchClaim (db: Db, claim: BatchClaim, retentionMs: number): Promise<boolean> {
  const result = await sql<{ key: string }>`
    insert into domain_batches (api_key_id, key, fingerprint, total, results, complete, lease_token, lease_until,
      created_at)
    values (${claim.apiKeyId}, ${claim.key}, ${claim.fingerprint}, ${claim.total}, '[]'::jsonb, false, ${claim.token},
      ${claim.leaseUntil}, ${claim.createdAt})
    on conflict (api_key_id, key) do update set fingerprint = excluded.fingerprint, total = excluded.total,
      results = excluded.results, complete = false, lease_token = excluded.lease_token,
      lease_until = excluded.lease_until, created_at = excluded.created_at
      where domain_batches.created_at < excluded.created_at - ${retentionMs} * interval '1 millisecond'
    returning key`.execute(db)
  return result.rows.length === 1
}

export async function findBatch (db: Db, apiKeyId: string, key: string) {
  return await db.selectFrom('domain_batches')
    .select(['fingerprint', 'results', 'complete', 'lease_token', 'lease_until', 'created_at'])
    .where('api_key_id', '=', apiKeyId).where('key', '=', key)
    .executeTakeFirst()
}

/** Takes the lease of a run that stopped (its lease passed), keeping its progress; undefined if another did. */
export async function takeOverBatch (
  db: Db,
  claim: Pick<BatchClaim, 'apiKeyId' | 'key' | 'token' | 'leaseUntil'>,
  previousToken: string
): Promise<unknown[] | undefined> {
  const row = await db.updateTable('domain_batches')
    .set({ lease_token: claim.token, lease_until: claim.leaseUntil })
    .where('api_key_id', '=', claim.apiKeyId).where('key', '=', claim.key)
    .where('lease_token', '=', previousToken).where('complete', '=', false)
    .returning('results')
    .executeTakeFirst()
  return row?.results
}

/**
 * Appends a chunk's results and renews the lease, in the chunk's transaction; false when the lease was lost
 * (the caller rolls the chunk back).
 */
export async function recordBatchProgress (
  trx: Db,
  claim: Pick<BatchClaim, 'apiKeyId' | 'key' | 'token' | 'leaseUntil'>,
  results: unknown[],
  complete: boolean
): Promise<boolean> {
  const result = await sql`
    update domain_batches set results = results || ${JSON.stringify(results)}::jsonb, complete = ${complete},
      lease_until = ${claim.leaseUntil}
    where api_key_id = ${claim.apiKeyId} and key = ${claim.key} and lease_token = ${claim.token}`.execute(trx)
  return Number(result.numAffectedRows ?? 0) === 1
}

export async function deleteBatchClaims (db: Db, createdBefore: Date): Promise<number> {
  const result = await db.deleteFrom('domain_batches').where('created_at', '<', createdBefore).executeTakeFirst()
  return Number(result.numDeletedRows)
}
