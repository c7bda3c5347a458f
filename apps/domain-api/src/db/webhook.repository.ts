import { sql, type Insertable, type Kysely, type Transaction } from 'kysely'
import type { FeedPosition, FeedRow } from './feed.repository.ts'
import type { DB, WebhooksTable } from './types.ts'

type Db = Kysely<DB> | Transaction<DB>

const HOOK_COLUMNS = [
  'id', 'url', 'events', 'organisation_did', 'created_by_key', 'created_by_account', 'created_at'
] as const

export async function insertWebhook (db: Db, row: Insertable<WebhooksTable>) {
  return await db.insertInto('webhooks').values(row).returning(HOOK_COLUMNS).executeTakeFirstOrThrow()
}
export type WebhookRow = Awaited<ReturnType<typeof insertWebhook>>

export async function findWebhook (db: Db, id: string): Promise<WebhookRow | undefined> {
  return await db.selectFrom('webhooks').select(HOOK_COLUMNS).where('id', '=', id).executeTakeFirst()
}

/** Hooks oldest first, after the keyset position `after`; with `organisation`, that organisation's only. */
export async function listWebhooks (
  db: Db,
  after: [Date, string] | undefined,
  limit: number,
  organisation: string | null = null
): Promise<WebhookRow[]> {
  let query = db.selectFrom('webhooks').select(HOOK_COLUMNS)
  if (organisation !== null) query = query.where('organisation_did', '=', organisation)
  if (after !== undefined) query = query.where(sql<boolean>`(created_at, id) > (${after[0]}, ${after[1]}::uuid)`)
  return await query.orderBy('created_at').orderBy('id').limit(limit).execute()
}

/** Deletes a hook with its deliveries and their log; false when there was none. */
export async function deleteWebhook (db: Db, id: string): Promise<boolean> {
  const result = await db.deleteFrom('webhooks').where('id', '=', id).executeTakeFirst()
  return result.numDeletedRows > 0n
}

/** Every hook no other replica is fanning out right now, locked until the transaction ends. */
export async function lockIdleWebhooks (trx: Transaction<DB>) {
  return await trx.selectFrom('webhooks')
    .select(['id', 'events', 'organisation_did'])
    .select([sql<string>`cursor_xid::text`.as('cursor_xid'), sql<string>`cursor_id::text`.as('cursor_id')])
    .forUpdate().skipLocked()
    .execute()
}

export async function enqueueDeliveries (trx: Transaction<DB>, webhookId: string, eventIds: string[]): Promise<void> {
  if (eventIds.length === 0) return
  await trx.insertInto('webhook_deliveries')
    .values(eventIds.map((eventId) => ({
      webhook_id: webhookId,
      event_id: eventId,
      status: 'pending',
      next_attempt_at: sql<Date>`now()`,
      created_at: sql<Date>`now()`
    })))
    .onConflict((c) => c.columns(['webhook_id', 'event_id']).doNothing())
    .execute()
}

export async function moveWebhookCursor (trx: Transaction<DB>, id: string, position: FeedPosition): Promise<void> {
  await trx.updateTable('webhooks')
    .set({ cursor_xid: sql<string>`${position.xid}::xid8`, cursor_id: position.id })
    .where('id', '=', id)
    .execute()
}

export interface ClaimedDelivery {
  delivery_id: string
  webhook_id: string
  attempts: number
  url: string
  secret: string
  /** The trace of the request that wrote the event, if it was traced. */
  traceparent: string | null
  event: FeedRow
}

/**
 * Claims up to `limit` due deliveries for this worker: each gets a lease for `leaseMs`, so no other
 * replica sends it meanwhile (SKIP LOCKED keeps concurrent claims apart; the lease outlives the
 * claiming transaction, which never stays open across the HTTP call).
 */
export async function claimDueDeliveries (db: Db, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
  const result = await sql<FeedRow & Omit<ClaimedDelivery, 'event'>>`
    with due as (
      select id from webhook_deliveries
      where status = 'pending' and next_attempt_at <= now() and (lease_until is null or lease_until < now())
      order by next_attempt_at
      limit ${limit}
      for update skip locked
    )
    update webhook_deliveries d
    set attempts = d.attempts + 1, last_attempt_at = now(), lease_until = now() + ${leaseMs} * interval '1 millisecond'
    from due, webhooks w, domain_events e
    where d.id = due.id and w.id = d.webhook_id and e.id = d.event_id
    returning d.id as delivery_id, d.webhook_id, d.attempts, w.url, w.secret, e.id::text as id, e.xid::text as xid,
      e.domain_did, e.event, e.from_status, e.to_status, e.actor_kind, e.actor_key, e.actor_account,
      e.actor_service, e.proposal_id, e.reason, e.details, e.at, e.traceparent
  `.execute(db)
  return result.rows.map(({
    delivery_id: deliveryId, webhook_id: webhookId, attempts, url, secret, traceparent,
    ...event
  }) => ({ delivery_id: deliveryId, webhook_id: webhookId, attempts, url, secret, traceparent, event }))
}

export interface AttemptOutcome {
  deliveryId: string
  /** The claim's attempt number: a result for a delivery claimed again since is dropped. */
  attempts: number
  at: Date
  statusCode: number | null
  error: string | null
  durationMs: number
  /** delivered; retry after `retryInMs`; or failed for good. */
  next: { status: 'delivered' } | { status: 'pending', retryInMs: number } | { status: 'failed' }
}

/** Logs an attempt and moves its delivery on; false when the delivery is gone or claimed again since. */
export async function recordAttempt (trx: Transaction<DB>, outcome: AttemptOutcome): Promise<boolean> {
  const { next } = outcome
  const updated = await trx.updateTable('webhook_deliveries')
    .set({
      status: next.status,
      lease_until: null,
      last_status_code: outcome.statusCode,
      last_error: outcome.error,
      next_attempt_at: next.status === 'pending'
        ? sql<Date>`now() + ${next.retryInMs} * interval '1 millisecond'`
        : null,
      ...(next.status === 'delivered' ? { delivered_at: sql<Date>`now()` } : {})
    })
    .where('id', '=', outcome.deliveryId)
    .where('attempts', '=', outcome.attempts)
    .executeTakeFirst()
  if (updated.numUpdatedRows === 0n) return false
  await trx.insertInto('webhook_attempts').values({
    delivery_id: outcome.deliveryId,
    at: outcome.at,
    status_code: outcome.statusCode,
    error: outcome.error,
    duration_ms: outcome.durationMs
  }).execute()
  return true
}

const deliveryQuery = (db: Db) => db.selectFrom('webhook_deliveries as d')
  .innerJoin('domain_events as e', 'e.id', 'd.event_id')
  .select(['d.id', 'd.webhook_id', 'd.status', 'd.attempts', 'd.next_attempt_at', 'd.lease_until', 'd.last_attempt_at',
    'd.last_status_code', 'd.last_error', 'd.created_at', 'd.delivered_at', 'e.event'])
  .select(sql<string>`d.event_id::text`.as('event_id'))

/** A hook's deliveries, newest first, after the keyset position `after`. */
export async function listDeliveries (
  db: Db,
  webhookId: string,
  filter: { status?: string | undefined },
  after: [Date, string] | undefined,
  limit: number
) {
  let query = deliveryQuery(db).where('d.webhook_id', '=', webhookId)
  if (filter.status !== undefined) query = query.where('d.status', '=', filter.status)
  if (after !== undefined) query = query.where(sql<boolean>`(d.created_at, d.id) < (${after[0]}, ${after[1]}::uuid)`)
  return await query.orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(limit).execute()
}
export type DeliveryRow = Awaited<ReturnType<typeof listDeliveries>>[number]

export async function findDelivery (db: Db, webhookId: string, id: string): Promise<DeliveryRow | undefined> {
  return await deliveryQuery(db).where('d.webhook_id', '=', webhookId).where('d.id', '=', id).executeTakeFirst()
}

export async function listAttempts (db: Db, deliveryId: string) {
  return await db.selectFrom('webhook_attempts')
    .select(['at', 'status_code', 'error', 'duration_ms'])
    .where('delivery_id', '=', deliveryId)
    .orderBy('id')
    .execute()
}

/**
 * Queues a delivery again at once with a fresh attempt budget, unless a worker holds it right now
 * (its result would overwrite the request). False when it is held or does not exist.
 */
export async function requeueDelivery (db: Db, webhookId: string, id: string): Promise<boolean> {
  const result = await db.updateTable('webhook_deliveries')
    .set({ status: 'pending', attempts: 0, next_attempt_at: sql<Date>`now()`, delivered_at: null })
    .where('webhook_id', '=', webhookId)
    .where('id', '=', id)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', sql<Date>`now()`)]))
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

/** Those of `dids` that belong to `organisation`: placed in it, or the organisation itself. */
export async function domainsOfOrganisation (db: Db, organisation: string, dids: string[]): Promise<Set<string>> {
  if (dids.length === 0) return new Set()
  const rows = await db.selectFrom('domains').select('did')
    .where('did', 'in', [...new Set(dids)])
    .where((eb) => eb.or([eb('organisation_did', '=', organisation), eb('did', '=', organisation)]))
    .execute()
  return new Set(rows.map((row) => row.did))
}
