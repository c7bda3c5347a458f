import { sql, type Kysely, type Transaction } from 'kysely'
import type { Updateable } from 'kysely'
import type { DB, DomainRow, DomainsTable } from './types.ts'

type Db = Kysely<DB> | Transaction<DB>

/** A domain with the summary of its latest verification proposal (its tally tells an ended one's outcome). */
export type DomainWithProposal = DomainRow & {
  p_status: string | null
  p_deadline: Date | null
  p_yes: number | null
  p_no: number | null
  p_abstain: number | null
  p_quorum: number | null
  p_threshold: number | null
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
    .select(['p.status as p_status', 'p.deadline as p_deadline', 'p.yes as p_yes', 'p.no as p_no',
      'p.abstain as p_abstain', 'p.quorum as p_quorum', 'p.threshold as p_threshold'])
}

export async function findDomain (db: Db, did: string): Promise<DomainWithProposal | undefined> {
  return await selectDomains(db).where('domains.did', '=', did).executeTakeFirst()
}

/** The domain of `classDid` registered under `externalId`, if any (its DID). */
export async function findDidByExternalId (db: Db, classDid: string, externalId: string): Promise<string | undefined> {
  const row = await db.selectFrom('domains').select('did')
    .where('class', '=', classDid).where('external_id', '=', externalId)
    .executeTakeFirst()
  return row?.did
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

export interface DomainFilters {
  type?: string
  class?: string
  status?: string
  controller?: string
  externalId?: string
}

/** One page of domains, newest first, after the keyset position `after` ([createdAt, did]). */
export async function listDomains (db: Db, filters: DomainFilters, after: [Date, string] | undefined, limit: number) {
  let query = selectDomains(db)
  if (filters.type !== undefined) query = query.where('domains.type', '=', filters.type)
  if (filters.class !== undefined) query = query.where('domains.class', '=', filters.class)
  if (filters.status !== undefined) query = query.where('domains.status', '=', filters.status)
  if (filters.externalId !== undefined) query = query.where('domains.external_id', '=', filters.externalId)
  if (filters.controller !== undefined) {
    query = query.where(sql<boolean>`domains.controllers @> array[${filters.controller}]::text[]`)
  }
  if (after !== undefined) {
    query = query.where((eb) => eb(eb.refTuple('domains.created_at', 'domains.did'), '<', eb.tuple(after[0], after[1])))
  }
  return await query.orderBy('domains.created_at', 'desc').orderBy('domains.did', 'desc').limit(limit).execute()
}

/** Several domains at once (GraphQL loaders batch the domains a page links to). */
export async function findDomains (db: Db, dids: readonly string[]): Promise<DomainWithProposal[]> {
  if (dids.length === 0) return []
  return await selectDomains(db).where('domains.did', 'in', dids).execute()
}
