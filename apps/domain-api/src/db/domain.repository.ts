import { sql, type Kysely, type Transaction } from 'kysely'
import type { DB, DomainRow, DomainsTable, NewEvent } from './types.ts'
import type { Updateable } from 'kysely'

type Db = Kysely<DB> | Transaction<DB>

export interface NewDomain {
  did: string
  type: string
  class: string
  controllers: string[]
  metadata: Record<string, unknown>
  validFrom: Date | null
  validUntil: Date | null
  createdByKey: string
  createdByAccount: string
  createdAt: Date
}

export interface IdempotencyClaim {
  apiKeyId: string
  key: string
  fingerprint: string
  response: Record<string, unknown>
  /** Rows older than this are forgotten: a new request may reuse their key. */
  expiredBefore: Date
}

/** A domain with the summary of its latest verification proposal. */
export type DomainWithProposal = DomainRow & { p_status: string | null, p_deadline: Date | null }

/**
 * Inserts a domain and its `created` history entry in one statement (one round trip, atomic
 * without an explicit transaction). With an idempotency claim, the claim is inserted first in
 * the same statement: when another request already holds the key the claim inserts nothing and
 * neither does the domain, so concurrent retries create exactly one domain (the unique key
 * makes the second statement wait for the first to commit). Resolves whether it inserted.
 */
export async function insertDomain (db: Db, domain: NewDomain, event: Omit<NewEvent, 'domain_did'>, claim?: IdempotencyClaim): Promise<boolean> {
  const claimCte = claim === undefined
    ? sql``
    : sql`claim as (
        insert into idempotency_keys (api_key_id, key, fingerprint, domain_did, response, created_at)
        values (${claim.apiKeyId}, ${claim.key}, ${claim.fingerprint}, ${domain.did}, ${JSON.stringify(claim.response)}, ${domain.createdAt})
        on conflict (api_key_id, key) do update
          set fingerprint = excluded.fingerprint, domain_did = excluded.domain_did, response = excluded.response, created_at = excluded.created_at
          where idempotency_keys.created_at < ${claim.expiredBefore}
        returning 1
      ),`
  const guard = claim === undefined ? sql`` : sql`where exists (select 1 from claim)`
  const result = await sql<{ id: string }>`
    with ${claimCte} inserted as (
      insert into domains (did, type, class, controllers, metadata, valid_from, valid_until, status,
        created_by_key, created_by_account, created_at, updated_at)
      select ${domain.did}, ${domain.type}, ${domain.class}, ${domain.controllers}, ${JSON.stringify(domain.metadata)},
        ${domain.validFrom}, ${domain.validUntil}, 'draft', ${domain.createdByKey}, ${domain.createdByAccount},
        ${domain.createdAt}, ${domain.createdAt}
      ${guard}
      returning did
    )
    insert into domain_events (domain_did, event, from_status, to_status, actor_kind, actor_key, actor_account, reason, at)
    select did, ${event.event}, ${event.from_status ?? null}, ${event.to_status}, ${event.actor_kind}, ${event.actor_key ?? null},
      ${event.actor_account ?? null}, ${event.reason ?? null}, ${event.at}
    from inserted
    returning id
  `.execute(db)
  return result.rows.length > 0
}

export async function findIdempotencyClaim (db: Db, apiKeyId: string, key: string) {
  return await db.selectFrom('idempotency_keys')
    .select(['fingerprint', 'response', 'created_at'])
    .where('api_key_id', '=', apiKeyId).where('key', '=', key)
    .executeTakeFirst()
}

export async function deleteIdempotencyClaims (db: Db, createdBefore: Date): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('created_at', '<', createdBefore).executeTakeFirst()
  return Number(result.numDeletedRows)
}

export function selectDomains (db: Db) {
  return db.selectFrom('domains')
    .leftJoin('verification_proposals as p', 'p.id', 'domains.latest_proposal_id')
    .selectAll('domains')
    .select(['p.status as p_status', 'p.deadline as p_deadline'])
}

export async function findDomain (db: Db, did: string): Promise<DomainWithProposal | undefined> {
  return await selectDomains(db).where('domains.did', '=', did).executeTakeFirst()
}

/** Locks the domain row for the rest of the transaction; every change to a domain starts here. */
export async function lockDomain (trx: Transaction<DB>, did: string): Promise<DomainRow | undefined> {
  return await trx.selectFrom('domains').selectAll().where('did', '=', did).forUpdate().executeTakeFirst()
}

export type DomainChanges = Omit<Updateable<DomainsTable>, 'metadata'> & { metadata?: Record<string, unknown> }

export async function updateDomain (trx: Transaction<DB>, did: string, changes: DomainChanges): Promise<DomainRow> {
  const { metadata, ...rest } = changes
  return await trx.updateTable('domains')
    .set({ ...rest, ...(metadata !== undefined ? { metadata: JSON.stringify(metadata) } : {}) })
    .where('did', '=', did)
    .returningAll()
    .executeTakeFirstOrThrow()
}

export async function findDomainType (db: Db, did: string): Promise<string | undefined> {
  const row = await db.selectFrom('domains').select('type').where('did', '=', did).executeTakeFirst()
  return row?.type
}

/** Domains with a transition due at `now` (an ended voting period, a passed validUntil), oldest first. */
export async function dueDomainDids (db: Db, now: Date, limit: number): Promise<string[]> {
  const expiring = await db.selectFrom('domains').select('did')
    .where('status', 'not in', ['expired', 'deactivated'])
    .where('valid_until', '<=', now)
    .orderBy('valid_until').limit(limit).execute()
  const ended = await db.selectFrom('verification_proposals').select('domain_did as did')
    .where('status', '=', 'open')
    .where('deadline', '<=', now)
    .orderBy('deadline').limit(limit).execute()
  return [...new Set([...expiring, ...ended].map((r) => r.did))]
}

export interface DomainFilters { type?: string, class?: string, status?: string, controller?: string }

/** One page of domains, newest first, after the keyset position `after` ([createdAt, did]). */
export async function listDomains (db: Db, filters: DomainFilters, after: [Date, string] | undefined, limit: number) {
  let query = selectDomains(db)
  if (filters.type !== undefined) query = query.where('domains.type', '=', filters.type)
  if (filters.class !== undefined) query = query.where('domains.class', '=', filters.class)
  if (filters.status !== undefined) query = query.where('domains.status', '=', filters.status)
  if (filters.controller !== undefined) query = query.where(sql<boolean>`domains.controllers @> array[${filters.controller}]::text[]`)
  if (after !== undefined) {
    query = query.where((eb) => eb(eb.refTuple('domains.created_at', 'domains.did'), '<', eb.tuple(after[0], after[1])))
  }
  return await query.orderBy('domains.created_at', 'desc').orderBy('domains.did', 'desc').limit(limit).execute()
}
