import { sql, type Kysely, type Transaction } from 'kysely'
import { activeTraceparent } from '@impact/service-kit'
import type { DB, NewEvent } from './types.ts'

type Db = Kysely<DB> | Transaction<DB>

/** Votes go to the change feed; a domain's history lists its transitions (a proposal lists its ballots). */
const VOTE_EVENTS = ['vote_cast', 'vote_changed']

export async function insertEvents (db: Db, events: NewEvent[]): Promise<void> {
  if (events.length === 0) return
  // Webhook deliveries continue the writing request's trace (see delivery-worker.ts).
  const traceparent = activeTraceparent() ?? null
  await db.insertInto('domain_events').values(events.map((event) => ({ ...event, traceparent }))).execute()
}

/** A domain's history in the order it happened, after entry `afterId`. */
export async function listEvents (db: Db, did: string, afterId: string | undefined, limit: number) {
  let query = db.selectFrom('domain_events')
    .select(['event', 'from_status', 'to_status', 'actor_kind', 'actor_key', 'actor_account', 'actor_service',
      'proposal_id', 'reason', 'details', 'at'])
    .select(sql<string>`id::text`.as('id'))
    .where('domain_did', '=', did)
    .where('event', 'not in', VOTE_EVENTS)
  if (afterId !== undefined) query = query.where('id', '>', afterId)
  return await query.orderBy('domain_events.id').limit(limit).execute()
}
export type EventListRow = Awaited<ReturnType<typeof listEvents>>[number]

/**
 * The first `limit` history entries after `afterId` of each of several domains, in one statement
 * (GraphQL asks for the history of every domain on a page).
 */
export async function listEventsOf (db: Db, dids: readonly string[], afterId: string | undefined, limit: number) {
  if (dids.length === 0) return []
  let ranked = db
    .selectFrom('domain_events')
    .select([
      'domain_did',
      'event',
      'from_status',
      'to_status',
      'actor_kind',
      'actor_key',
      'actor_account',
      'actor_service'
    ])
    .select(['proposal_id', 'reason', 'details', 'at'])
    .select(sql<string>`id::text`.as('id'))
    .select(sql<number>`row_number() over (partition by domain_did order by id)`.as('rank'))
    .where('domain_did', 'in', dids)
    .where('event', 'not in', VOTE_EVENTS)
  if (afterId !== undefined) ranked = ranked.where('id', '>', afterId)
  return await db.selectFrom(ranked.as('ranked')).selectAll()
    .where('rank', '<=', limit)
    .orderBy('domain_did').orderBy(sql`id::bigint`).execute()
}
