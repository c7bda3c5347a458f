import { sql, type Kysely, type Transaction } from 'kysely'
import type { DB, NewEvent } from './types.ts'

type Db = Kysely<DB> | Transaction<DB>

export async function insertEvents (db: Db, events: NewEvent[]): Promise<void> {
  if (events.length === 0) return
  await db.insertInto('domain_events').values(events).execute()
}

/** A domain's history in the order it happened, after entry `afterId`. */
export async function listEvents (db: Db, did: string, afterId: string | undefined, limit: number) {
  let query = db.selectFrom('domain_events')
    .select(['event', 'from_status', 'to_status', 'actor_kind', 'actor_key', 'actor_account', 'actor_service',
      'proposal_id', 'reason', 'details', 'at'])
    .select(sql<string>`id::text`.as('id'))
    .where('domain_did', '=', did)
  if (afterId !== undefined) query = query.where('id', '>', afterId)
  return await query.orderBy('domain_events.id').limit(limit).execute()
}
export type EventListRow = Awaited<ReturnType<typeof listEvents>>[number]
