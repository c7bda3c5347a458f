import { sql, type Kysely, type Transaction } from 'kysely'
import type { DB } from './types.ts'

type Db = Kysely<DB> | Transaction<DB>

/** A place in the change feed: the writing transaction's xid8 and the event id, both as decimal text. */
export interface FeedPosition { xid: string, id: string }

const feedRows = (db: Db) => db.selectFrom('domain_events')
  .select(['domain_did', 'event', 'from_status', 'to_status', 'actor_kind', 'actor_key', 'actor_account',
    'actor_service', 'proposal_id', 'reason', 'details', 'at'])
  .select([sql<string>`id::text`.as('id'), sql<string>`xid::text`.as('xid')])

/**
 * Events after `after` in (xid, id) order, only of transactions older than the oldest in flight: any later
 * commit has a higher xid, so a reader resuming from its last position never skips one.
 */
export async function readFeed (db: Db, after: FeedPosition | undefined, types: string[] | undefined, limit: number) {
  let query = feedRows(db).where(sql<boolean>`xid < pg_snapshot_xmin(pg_current_snapshot())`)
  if (after !== undefined) query = query.where(sql<boolean>`(xid, id) > (${after.xid}::xid8, ${after.id}::bigint)`)
  if (types !== undefined) query = query.where('event', 'in', types)
  // The columns, not the text aliases selected above: '100' sorts before '99' as text.
  return await query.orderBy('domain_events.xid').orderBy('domain_events.id').limit(limit).execute()
}
export type FeedRow = Awaited<ReturnType<typeof readFeed>>[number]

export async function findFeedEvent (db: Db, id: string): Promise<FeedRow | undefined> {
  return await feedRows(db).where('id', '=', id).executeTakeFirst()
}
