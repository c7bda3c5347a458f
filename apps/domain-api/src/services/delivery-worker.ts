import type { FastifyBaseLogger } from 'fastify'
import type { Kysely } from 'kysely'
import { inTransaction } from '@impact/persistence'
import { TRACING_OFF, type Tracing } from '@impact/service-kit'
import { readFeed } from '../db/feed.repository.ts'
import type { DB } from '../db/types.ts'
import {
  claimDueDeliveries,
  domainsOfOrganisation,
  enqueueDeliveries,
  lockIdleWebhooks,
  moveWebhookCursor,
  recordAttempt,
  type AttemptOutcome,
  type ClaimedDelivery
} from '../db/webhook.repository.ts'
import { positionOf, toFeedEvent } from './events.ts'
import { createWebhookSender } from './webhook-sender.ts'

export interface DeliverySettings {
  pollIntervalMs: number
  timeoutMs: number
  maxAttempts: number
  retryBaseMs: number
  retryMaxMs: number
  concurrency: number
  allowPrivateTargets: boolean
}

/** Events one hook takes from the feed per pass. */
const FAN_OUT_BATCH = 500

/**
 * Delay before attempt `attempt + 1`: doubling from `baseMs` up to `maxMs`, with "equal jitter"
 * (half fixed, half random) so receivers coming back are not hit by every replica at once.
 */
export function retryDelay (attempt: number, baseMs: number, maxMs: number, random = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(attempt - 1, 40))
  return Math.round(ceiling / 2 + random() * ceiling / 2)
}

/**
 * Moves every hook's cursor over the feed, queueing a delivery for each matching event. Hooks
 * another replica is moving are skipped; the (hook, event) key makes a repeat queue nothing.
 * Resolves whether some hook has more events waiting than one pass takes.
 */
export async function fanOut (db: Kysely<DB>): Promise<boolean> {
  return await inTransaction(db, async (trx) => {
    let more = false
    for (const hook of await lockIdleWebhooks(trx)) {
      const rows = await readFeed(trx, { xid: hook.cursor_xid, id: hook.cursor_id }, undefined, FAN_OUT_BATCH)
      const last = rows.at(-1)
      if (last === undefined) continue
      const all = hook.events.includes('*')
      let matching = rows.filter((row) => all || hook.events.includes(row.event))
      if (hook.organisation_did !== null) {
        const own = await domainsOfOrganisation(trx, hook.organisation_did, matching.map((row) => row.domain_did))
        matching = matching.filter((row) => own.has(row.domain_did))
      }
      await enqueueDeliveries(trx, hook.id, matching.map((row) => row.id))
      await moveWebhookCursor(trx, hook.id, positionOf(last))
      more ||= rows.length === FAN_OUT_BATCH
    }
    return more
  })
}

/**
 * The in-app delivery worker: each pass queues new events for every hook, claims due deliveries
 * (leased, so replicas never send one at the same time) and sends them signed. At least once: a
 * result that cannot be recorded leaves the lease to run out and the delivery is sent again.
 * Database outages are logged once and retried on the next pass.
 */
export interface DeliveryWorkerOptions {
  db: Kysely<DB>
  log: FastifyBaseLogger
  settings: DeliverySettings
  tracing?: Tracing
  /** Hears of each attempt's outcome (metrics). */
  onAttempt?: (outcome: 'delivered' | 'retry' | 'failed') => void
}

export function startDeliveryWorker ({ db, log, settings, tracing = TRACING_OFF, onAttempt }: DeliveryWorkerOptions) {
  const sender = createWebhookSender({ timeoutMs: settings.timeoutMs, allowPrivate: settings.allowPrivateTargets })
  // Long enough for the request and recording its result; a crashed worker's claim frees after it.
  const leaseMs = settings.timeoutMs + 5000
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined
  let failing = false

  async function deliver (claim: ClaimedDelivery): Promise<void> {
    const event = toFeedEvent(claim.event)
    const result = await sender.send({
      url: claim.url,
      secret: claim.secret,
      body: JSON.stringify(event),
      eventId: event.id,
      eventType: event.event,
      deliveryId: claim.delivery_id,
      attempt: claim.attempts
    })
    const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300
    const next: AttemptOutcome['next'] = ok
      ? { status: 'delivered' }
      : claim.attempts >= settings.maxAttempts
        ? { status: 'failed' }
        : { status: 'pending', retryInMs: retryDelay(claim.attempts, settings.retryBaseMs, settings.retryMaxMs) }
    onAttempt?.(next.status === 'pending' ? 'retry' : next.status)
    const at = new Date(Date.now() - result.durationMs)
    try {
      await inTransaction(db, async (trx) => {
        await recordAttempt(trx, { deliveryId: claim.delivery_id, attempts: claim.attempts, at, ...result, next })
      })
    } catch (err) {
      log.warn({ err, deliveryId: claim.delivery_id },
        'webhook attempt not recorded; it is sent again once its lease ends')
    }
  }

  /** One pass; true when there is more to do right away (a backlog of events or due deliveries). */
  async function pass (): Promise<boolean> {
    const more = await fanOut(db)
    const claimed = await claimDueDeliveries(db, settings.concurrency, leaseMs)
    // Each attempt is a span of the trace of the request that wrote the event (a new trace when it had none),
    // so an operator sees a registration through to its receivers; the receiver gets its traceparent.
    await Promise.all(claimed.map(async (claim) => {
      const attributes = { 'webhook.event_type': claim.event.event, 'webhook.attempt': claim.attempts }
      const carrier = claim.traceparent !== null ? { traceparent: claim.traceparent } : {}
      await tracing.inSpan('webhook delivery', { attributes, carrier }, async () => { await deliver(claim) })
    }))
    return more || claimed.length === settings.concurrency
  }

  function schedule (delayMs: number) {
    if (stopped) return
    timer = setTimeout(run, delayMs)
    timer.unref()
  }

  function run () {
    running = pass()
      .then((busy) => {
        if (failing) log.info('webhook delivery worker: database reachable again')
        failing = false
        return busy
      }, (err: unknown) => {
        if (!failing) log.warn({ err }, 'webhook delivery worker: pass failed; retrying every poll interval')
        failing = true
        return false
      })
      .then((busy) => {
        running = undefined
        schedule(busy ? 0 : settings.pollIntervalMs)
      })
  }

  schedule(0)
  return {
    async stop () {
      stopped = true
      clearTimeout(timer)
      // Requests in flight are cut short; their attempts are logged and retried later.
      sender.close()
      await running
    }
  }
}
