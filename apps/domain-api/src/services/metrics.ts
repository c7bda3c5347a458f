import { Counter, Gauge, type Registry } from '@impact/service-kit'
import { sql, type Kysely } from 'kysely'
import type { DB } from '../db/types.ts'
import type { createBatchService } from './domain-batch.ts'
import type { createDomainService } from './domains.ts'
import type { createGovernanceService } from './governance.ts'

type Domains = ReturnType<typeof createDomainService>
type Batches = ReturnType<typeof createBatchService>
type Governance = ReturnType<typeof createGovernanceService>
export type DeliveryOutcome = 'delivered' | 'retry' | 'failed'

/** A refusal's error code (`DOMAIN_…`, a bounded set), else `error`. */
const outcomeOf = (error: unknown): string => {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]{2,63}$/.test(code) ? code : 'error'
}

async function counted<T> (work: () => Promise<T>, count: (outcome: string, value?: T) => void): Promise<T> {
  let value: T
  try {
    value = await work()
  } catch (error) {
    count(outcomeOf(error))
    throw error
  }
  count('ok', value)
  return value
}

/**
 * The registry's own metrics: writes by outcome (`ok` or the refusal's code), verification decisions,
 * webhook deliveries, and the backlog read from the database at scrape time (the same for every replica).
 */
export function createDomainMetrics (registry: Registry, db: Kysely<DB>) {
  const registers = [registry]
  const creates = new Counter({
    name: 'domain_api_creates_total',
    help: 'Domain registrations by kind (single, batch request) and outcome (ok, replayed or the error code)',
    labelNames: ['kind', 'outcome'] as const,
    registers
  })
  const batchItems = new Counter({
    name: 'domain_api_batch_items_total',
    help: 'Items of batch registrations by outcome (created, failed)',
    labelNames: ['outcome'] as const,
    registers
  })
  const proposals = new Counter({
    name: 'domain_api_proposals_total',
    help: 'Verification proposals opened, by outcome (ok or the error code)',
    labelNames: ['outcome'] as const,
    registers
  })
  const votes = new Counter({
    name: 'domain_api_votes_total',
    help: 'Votes cast, by vote (approve, reject, veto...) and outcome (ok or the error code)',
    labelNames: ['vote', 'outcome'] as const,
    registers
  })
  const verifications = new Counter({
    name: 'domain_api_verifications_total',
    help: 'Verification proposals decided by a vote, by outcome (passed, rejected, vetoed)',
    labelNames: ['outcome'] as const,
    registers
  })
  const deliveries = new Counter({
    name: 'domain_api_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome: delivered, retry (will be sent again), failed (given up)',
    labelNames: ['outcome'] as const,
    registers
  })
  new Gauge({ // eslint-disable-line no-new
    name: 'domain_api_webhook_oldest_pending_seconds',
    help: 'Age of the oldest webhook delivery not delivered or given up yet (0 when none)',
    registers,
    async collect () {
      const row = await sql<{ age: number | null }>`
        select extract(epoch from now() - min(created_at))::float8 as age
        from webhook_deliveries where status = 'pending'`.execute(db).catch(() => undefined)
      if (row !== undefined) this.set(Math.max(0, Number(row.rows[0]?.age ?? 0)))
    }
  })
  new Gauge({ // eslint-disable-line no-new
    name: 'domain_api_outbox_lag_seconds',
    help: 'Age of the oldest registry event some webhook has not yet queued for delivery (0 when none)',
    registers,
    async collect () {
      const row = await sql<{ lag: number | null }>`
        select extract(epoch from now() - min(next.at))::float8 as lag
        from webhooks w cross join lateral (
          select e.at from domain_events e
          where (e.xid, e.id) > (w.cursor_xid, w.cursor_id)
            and e.xid < pg_snapshot_xmin(pg_current_snapshot())
          order by e.xid, e.id limit 1
        ) next`.execute(db).catch(() => undefined)
      if (row !== undefined) this.set(Math.max(0, Number(row.rows[0]?.lag ?? 0)))
    }
  })

  return {
    domains: (service: Domains): Domains => ({
      ...service,
      create: async (...args) => await counted(async () => await service.create(...args), (outcome, value) => {
        creates.inc({ kind: 'single', outcome: value?.replayed === true ? 'replayed' : outcome })
      })
    }),
    batches: (service: Batches): Batches => ({
      ...service,
      register: async (...args) => await counted(async () => await service.register(...args), (outcome, value) => {
        creates.inc({ kind: 'batch', outcome: value?.replayed === true ? 'replayed' : outcome })
        if (value === undefined || value.replayed) return
        batchItems.inc({ outcome: 'created' }, value.result.created)
        batchItems.inc({ outcome: 'failed' }, value.result.failed)
      })
    }),
    governance: (service: Governance): Governance => ({
      ...service,
      propose: async (...args) => await counted(async () => await service.propose(...args), (outcome) => {
        proposals.inc({ outcome })
      }),
      vote: async (caller, id, body) => await counted(async () => await service.vote(caller, id, body), (o, value) => {
        votes.inc({ vote: body.vote, outcome: o })
        if (value !== undefined && value.status !== 'open') verifications.inc({ outcome: value.status })
      })
    }),
    delivered: (outcome: DeliveryOutcome) => { deliveries.inc({ outcome }) }
  }
}
