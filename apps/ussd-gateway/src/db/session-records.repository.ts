import { sql, type Kysely } from 'kysely'
import type { DB, EndReason } from './types.ts'

/** An ended session as recorded: where it ended and how, never what was typed or shown. */
export interface SessionRecord {
  sessionId: string
  serviceCode: string
  networkCode: string | null
  hops: number
  lastState: string
  endReason: EndReason
  startedAt: Date
  endedAt: Date
  durationMs: number
  aggregatorStatus: string | null
  aggregatorCost: string | null
}

/** A record's identity: its session id and start. */
export const recordKey = (sessionId: string, startedAt: Date) => `${sessionId} ${startedAt.toISOString()}`

/** Inserts the records of sessions (id and start) not recorded already; resolves the keys of those inserted. */
export async function insertSessionRecords (db: Kysely<DB>, records: readonly SessionRecord[]): Promise<Set<string>> {
  const rows = await db.insertInto('ussd_session_records')
    .values(records.map((record) => ({
      session_id: record.sessionId,
      service_code: record.serviceCode,
      network_code: record.networkCode,
      hops: record.hops,
      last_state: record.lastState,
      end_reason: record.endReason,
      started_at: record.startedAt,
      ended_at: record.endedAt,
      duration_ms: record.durationMs,
      aggregator_status: record.aggregatorStatus,
      aggregator_cost: record.aggregatorCost
    })))
    .onConflict((oc) => oc.columns(['session_id', 'started_at']).doNothing())
    .returning(['session_id', 'started_at'])
    .execute()
  return new Set(rows.map((row) => recordKey(row.session_id, new Date(row.started_at))))
}

/**
 * Adds the aggregator's status and cost to the latest record of `sessionId` that has none yet (its
 * notification comes after our END); false when there is no such record.
 */
export async function addAggregatorOutcome (
  db: Kysely<DB>,
  sessionId: string,
  outcome: { status: string | null, cost: string | null }
): Promise<boolean> {
  const latest = db.selectFrom('ussd_session_records')
    .select('id')
    .where('session_id', '=', sessionId)
    .where('aggregator_status', 'is', null)
    .where('aggregator_cost', 'is', null)
    .orderBy('ended_at', 'desc')
    .limit(1)
  const result = await db.updateTable('ussd_session_records')
    .set({ aggregator_status: outcome.status, aggregator_cost: outcome.cost })
    .where('id', '=', latest)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

/** The records of one aggregator session id (usually one; an id reused for a new dial has more), latest first. */
export async function findSessionRecords (db: Kysely<DB>, sessionId: string): Promise<SessionRecord[]> {
  const rows = await db.selectFrom('ussd_session_records')
    .selectAll()
    .where('session_id', '=', sessionId)
    .orderBy('ended_at', 'desc')
    .limit(20)
    .execute()
  return rows.map((row) => ({
    sessionId: row.session_id,
    serviceCode: row.service_code,
    networkCode: row.network_code,
    hops: row.hops,
    lastState: row.last_state,
    endReason: row.end_reason,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    durationMs: row.duration_ms,
    aggregatorStatus: row.aggregator_status,
    aggregatorCost: row.aggregator_cost
  }))
}

export interface DropOffRow { state: string, sessions: number, end: number, user: number, timeout: number }

/** Sessions that ended in [from, to) per last state, split by how they ended; most first. */
export async function dropOffByState (
  db: Kysely<DB>,
  range: { from: Date, to: Date, serviceCode?: string | undefined }
): Promise<DropOffRow[]> {
  const ended = (reason: EndReason) => sql<string>`count(*) filter (where end_reason = ${reason})`
  let query = db.selectFrom('ussd_session_records')
    .select((eb) => [
      'last_state as state',
      eb.fn.countAll<string>().as('sessions'),
      ended('end').as('end'),
      ended('user').as('user'),
      ended('timeout').as('timeout')
    ])
    .where('ended_at', '>=', range.from)
    .where('ended_at', '<', range.to)
  if (range.serviceCode !== undefined) query = query.where('service_code', '=', range.serviceCode)
  const rows = await query.groupBy('last_state').orderBy('sessions', 'desc').orderBy('last_state').execute()
  // Counts come back as strings (bigint) from PostgreSQL.
  return rows.map((row) => ({
    state: row.state,
    sessions: Number(row.sessions),
    end: Number(row.end),
    user: Number(row.user),
    timeout: Number(row.timeout)
  }))
}

/** Deletes records of sessions that ended before `cutoff` (the retention setting); answers how many. */
export async function deleteSessionRecordsBefore (db: Kysely<DB>, cutoff: Date): Promise<number> {
  const result = await db.deleteFrom('ussd_session_records').where('ended_at', '<', cutoff).executeTakeFirst()
  return Number(result.numDeletedRows)
}
