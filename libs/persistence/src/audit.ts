import { sql, type Kysely } from 'kysely'

/** One security-relevant event: who did what to what, from where, in which request and trace. Never a secret. */
export interface AuditRecord {
  /** Dotted name, e.g. `auth.login`, `api_key.created`, `operator.request`. */
  action: string
  outcome: 'success' | 'failure'
  /** The principal acting (an account, a DID, an API key id, `operator`); null when unknown. */
  actor: string | null
  subject: string | null
  ip: string | null
  requestId: string | null
  traceId: string | null
  /** Small facts about the event (counts, roles, states); never PINs, keys, tokens or message text. */
  details: Record<string, unknown>
}

export interface AuditEntry extends AuditRecord {
  id: string
  at: Date
}

export interface AuditPage { items: AuditEntry[], nextCursor: string | null }

export interface AuditQuery {
  limit: number
  before?: string | undefined
  action?: string | undefined
}

/** Each app creates its own audit table in a frozen migration (createAuditTable). */
interface AuditRow {
  id: string
  at: Date
  action: string
  outcome: string
  actor: string | null
  subject: string | null
  ip: string | null
  request_id: string | null
  trace_id: string | null
  details: Record<string, unknown> | string
}

const DAY_MS = 24 * 60 * 60 * 1000
const CURSOR = /^[1-9]\d{0,18}$/

const toEntry = (row: AuditRow): AuditEntry => ({
  id: String(row.id),
  at: row.at,
  action: row.action,
  outcome: row.outcome === 'failure' ? 'failure' : 'success',
  actor: row.actor,
  subject: row.subject,
  ip: row.ip,
  requestId: row.request_id,
  traceId: row.trace_id,
  details: typeof row.details === 'string' ? JSON.parse(row.details) as Record<string, unknown> : row.details
})

export interface AuditStoreOptions {
  db: Kysely<any>
  table: string
  retentionDays: number
  now?: () => Date
}

/** An app's audit table: append, read newest first by cursor, and delete what is past the retention. */
export function createAuditStore (options: AuditStoreOptions) {
  const { db, table } = options
  const now = options.now ?? (() => new Date())

  return {
    async write (record: AuditRecord): Promise<void> {
      // The store's clock, so the retention counts on the same clock as the entries.
      await db.insertInto(table).values({
        at: now(),
        action: record.action,
        outcome: record.outcome,
        actor: record.actor,
        subject: record.subject,
        ip: record.ip,
        request_id: record.requestId,
        trace_id: record.traceId,
        details: JSON.stringify(record.details)
      }).execute()
    },

    /** Newest first; `before` that is not a cursor this store gave reads from the newest. */
    async page (query: AuditQuery): Promise<AuditPage> {
      let select = db.selectFrom(table).selectAll().orderBy('id', 'desc').limit(query.limit + 1)
      if (query.before !== undefined && CURSOR.test(query.before)) select = select.where('id', '<', query.before)
      if (query.action !== undefined) select = select.where('action', '=', query.action)
      const rows = await select.execute() as AuditRow[]
      const items = rows.slice(0, query.limit).map(toEntry)
      return { items, nextCursor: rows.length > query.limit ? items.at(-1)?.id ?? null : null }
    },

    async prune (): Promise<number> {
      const cutoff = new Date(now().getTime() - options.retentionDays * DAY_MS)
      const result = await db.deleteFrom(table).where('at', '<', cutoff).executeTakeFirst()
      return Number(result.numDeletedRows)
    }
  }
}

export type AuditStore = ReturnType<typeof createAuditStore>

/**
 * The audit table as the apps' migrations create it. Frozen like them: never change it; a new shape is a new
 * function called from new migrations.
 */
export async function createAuditTable (db: Kysely<any>, table: string): Promise<void> {
  await db.schema
    .createTable(table)
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull().check(sql`outcome in ('success', 'failure')`))
    .addColumn('actor', 'text')
    .addColumn('subject', 'text')
    .addColumn('ip', 'text')
    .addColumn('request_id', 'text')
    .addColumn('trace_id', 'text')
    .addColumn('details', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .execute()
  await db.schema.createIndex(`${table}_at_idx`).on(table).column('at').execute()
  await db.schema.createIndex(`${table}_action_idx`).on(table).columns(['action', 'id']).execute()
}
