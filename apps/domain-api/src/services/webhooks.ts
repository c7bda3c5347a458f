import { randomBytes, randomUUID } from 'node:crypto'
import type { Kysely } from 'kysely'
import {
  deleteWebhook,
  findDelivery,
  findWebhook,
  insertWebhook,
  listAttempts,
  listDeliveries,
  listWebhooks,
  requeueDelivery,
  type DeliveryRow,
  type WebhookRow
} from '../db/webhook.repository.ts'
import { findFeedEvent } from '../db/feed.repository.ts'
import type { DB } from '../db/types.ts'
import {
  DomainDeliveryInFlightError,
  DomainDeliveryNotFoundError,
  DomainWebhookNotFoundError,
  invalid
} from '../errors.ts'
import type { CreateWebhookBody, Delivery, ListDeliveriesQuery, Webhook } from '../schemas/webhook.ts'
import type { Caller } from './api-keys.ts'
import type { Clock } from './clock.ts'
import { toFeedEvent } from './events.ts'
import { decodeKeyset, toPage } from './pagination.ts'
import { refuseTarget } from './webhook-targets.ts'

const iso = (date: Date | null) => (date === null ? null : date.toISOString())

/** A signing secret: 256 bits from the CSPRNG. */
export const newWebhookSecret = () => `whsec_${randomBytes(32).toString('base64url')}`

const toWebhook = (row: WebhookRow): Webhook => ({
  id: row.id,
  url: row.url,
  events: row.events,
  organisation: row.organisation_did,
  createdBy: { keyId: row.created_by_key, account: row.created_by_account, service: null },
  createdAt: row.created_at.toISOString()
})

function toDelivery (row: DeliveryRow, now: Date): Delivery {
  return {
    id: row.id,
    webhookId: row.webhook_id,
    eventId: row.event_id,
    eventType: row.event,
    status: row.status as Delivery['status'],
    attempts: row.attempts,
    inFlight: row.lease_until !== null && row.lease_until > now,
    nextAttemptAt: row.status === 'pending' ? iso(row.next_attempt_at) : null,
    lastAttemptAt: iso(row.last_attempt_at),
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    createdAt: row.created_at.toISOString(),
    deliveredAt: iso(row.delivered_at)
  }
}

export interface WebhookServiceOptions {
  db: Kysely<DB>
  clock: Clock
  /** Whether hooks may target loopback and private networks (development and tests). */
  allowPrivateTargets: boolean
}

/** Registration of webhooks and their delivery log; the sending is the delivery worker's. */
export function createWebhookService ({ db, clock, allowPrivateTargets }: WebhookServiceOptions) {
  /** A hook the caller manages: any for a platform admin, its organisation's for another (others are not found). */
  async function hook (caller: Caller, id: string): Promise<WebhookRow> {
    const row = await findWebhook(db, id)
    if (row === undefined || (caller.organisation !== null && row.organisation_did !== caller.organisation)) {
      throw new DomainWebhookNotFoundError(id)
    }
    return row
  }

  async function delivery (caller: Caller, id: string, deliveryId: string): Promise<DeliveryRow> {
    await hook(caller, id)
    const row = await findDelivery(db, id, deliveryId)
    if (row === undefined) throw new DomainDeliveryNotFoundError(deliveryId, id)
    return row
  }

  return {
    async create (caller: Caller, body: CreateWebhookBody): Promise<Webhook & { secret: string }> {
      const refusal = await refuseTarget(body.url, allowPrivateTargets)
      if (refusal !== undefined) throw invalid(`url ${refusal}`, [{ field: '/url', message: refusal }])
      const secret = body.secret ?? newWebhookSecret()
      const row = await insertWebhook(db, {
        id: randomUUID(),
        url: body.url,
        events: body.events.includes('*') ? ['*'] : body.events,
        secret,
        // Admin routes take API keys only; the account stands in as for UCAN voters.
        created_by_key: caller.keyId ?? caller.account,
        created_by_account: caller.account,
        // A hook of an organisation's admin gets the events of that organisation's domains only.
        organisation_did: caller.organisation,
        created_at: clock()
      })
      return { ...toWebhook(row), secret }
    },

    async list (caller: Caller, query: { limit: number, cursor?: string | undefined }) {
      const rows = await listWebhooks(db, decodeKeyset(query.cursor), query.limit + 1, caller.organisation)
      return toPage(rows, query.limit, toWebhook, (row) => [row.created_at.toISOString(), row.id])
    },

    get: async (caller: Caller, id: string): Promise<Webhook> => toWebhook(await hook(caller, id)),

    async remove (caller: Caller, id: string): Promise<void> {
      await hook(caller, id)
      if (!await deleteWebhook(db, id)) throw new DomainWebhookNotFoundError(id)
    },

    async deliveries (caller: Caller, id: string, query: ListDeliveriesQuery) {
      const after = decodeKeyset(query.cursor)
      await hook(caller, id)
      const rows = await listDeliveries(db, id, { status: query.status }, after, query.limit + 1)
      const now = new Date()
      return toPage(rows, query.limit, (row) => toDelivery(row, now), (row) => [row.created_at.toISOString(), row.id])
    },

    async delivery (caller: Caller, id: string, deliveryId: string) {
      const row = await delivery(caller, id, deliveryId)
      const event = await findFeedEvent(db, row.event_id)
      const log = await listAttempts(db, deliveryId)
      // Events are never deleted and a delivery refers to one; this only satisfies the type.
      if (event === undefined) throw new DomainDeliveryNotFoundError(deliveryId, id)
      return {
        ...toDelivery(row, new Date()),
        event: toFeedEvent(event),
        log: log.map((a) => ({
          at: a.at.toISOString(),
          statusCode: a.status_code,
          error: a.error,
          durationMs: a.duration_ms
        }))
      }
    },

    /** Sends a delivery again (whatever its status) with a fresh attempt budget and the same event id. */
    async redeliver (caller: Caller, id: string, deliveryId: string): Promise<Delivery> {
      await delivery(caller, id, deliveryId)
      if (!await requeueDelivery(db, id, deliveryId)) throw new DomainDeliveryInFlightError(deliveryId)
      return toDelivery(await delivery(caller, id, deliveryId), new Date())
    }
  }
}

export type WebhookService = ReturnType<typeof createWebhookService>
