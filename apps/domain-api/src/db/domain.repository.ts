import { sql, type Kysely, type Transaction } from 'kysely'
import type { Updateable } from 'kysely'
import type { DB, DomainRow, DomainsTable } from './types.ts'

type Db = Kysely<DB> | Transaction<DB>

/** A domain with the summary of its latest verification proposal (its tally tells an ended one's outcome). */
export type DomainWithProposal = DomainRow & {
  p_kind: string | null
  p_valid_until: Date | null
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
    .select(['p.kind as p_kind', 'p.valid_until as p_valid_until', 'p.status as p_status',
      'p.deadline as p_deadline', 'p.yes as p_yes', 'p.no as p_no', 'p.abstain as p_abstain', 'p.quorum as p_quorum',
      'p.threshold as p_threshold'])
}

export async function findDomain (db: Db, did: string): Promise<DomainWithProposal | undefined> {
  return await selectDomains(db).where('domains.did', '=', did).executeTakeFirst()
}

/**
 * Where an external id must be unique: per type within the organisation, or per class for a domain outside any
 * organisation (the two unique indexes of domains.external_id).
 */
export interface ExternalIdScope { organisation: string | null, type: string, class: string }

export const describeScope = (scope: ExternalIdScope) => scope.organisation !== null
  ? `type ${scope.type} in organisation ${scope.organisation}`
  : `class ${scope.class}`

/** The domain registered under `externalId` in `scope`, if any (its DID). */
export async function findDidByExternalId (
  db: Db,
  scope: ExternalIdScope,
  externalId: string
): Promise<string | undefined> {
  let query = db.selectFrom('domains').select('did').where('external_id', '=', externalId)
  query = scope.organisation !== null
    ? query.where('organisation_did', '=', scope.organisation).where('type', '=', scope.type)
    : query.where('organisation_did', 'is', null).where('class', '=', scope.class)
  const row = await query.executeTakeFirst()
  return row?.did
}

/** Every domain holding one of `externalIds`, with what places it in a scope (bulk registration checks). */
export async function findExternalIdHolders (db: Db, externalIds: string[]) {
  if (externalIds.length === 0) return []
  return await db.selectFrom('domains')
    .select(['did', 'external_id', 'organisation_did', 'type', 'class'])
    .where('external_id', 'in', externalIds)
    .execute()
}

/** What a class or a link names, as the write checks need it. */
export async function findReferences (db: Db, dids: string[], options: { lock?: boolean } = {}) {
  if (dids.length === 0) return new Map<string, ReferenceRow>()
  let query = db.selectFrom('domains')
    .select(['did', 'type', 'status', 'valid_from', 'valid_until', 'organisation_did', 'project_did'])
    .where('did', 'in', [...new Set(dids)])
  // Inside a transaction: the targets cannot be deactivated until it commits.
  if (options.lock === true) query = query.forShare()
  const rows = await query.execute()
  return new Map(rows.map((row) => [row.did, row]))
}
export type ReferenceRow = Pick<DomainRow, 'did' | 'type' | 'status' | 'valid_from' | 'valid_until' |
  'organisation_did' | 'project_did'>

/** Whether other domains name `did` as their parent. */
export async function hasChildren (db: Db, did: string): Promise<boolean> {
  const row = await db.selectFrom('domains').select('did').where('parent_did', '=', did).limit(1).executeTakeFirst()
  return row !== undefined
}

/**
 * Locks the domain row for the rest of the transaction; every change to a domain starts here. Also says which kind
 * its latest proposal is (a collection's row is locked in another order).
 */
export async function lockDomain (
  trx: Transaction<DB>,
  did: string
): Promise<{ domain: DomainRow, latestKind: string | null } | undefined> {
  const row = await trx.selectFrom('domains')
    .leftJoin('verification_proposals as p', 'p.id', 'domains.latest_proposal_id')
    .selectAll('domains').select('p.kind as latest_kind')
    .where('domains.did', '=', did).forUpdate('domains').executeTakeFirst()
  if (row === undefined) return undefined
  const { latest_kind: latestKind, ...domain } = row
  return { domain, latestKind }
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
  // Collections are settled on their own (collections.ts).
  const ended = await db.selectFrom('verification_proposals').select('domain_did as did')
    .where('status', '=', 'open')
    .where('kind', '<>', 'collection')
    .where('deadline', '<=', now)
    .orderBy('deadline').limit(limit).execute()
  return [...new Set([...expiring, ...ended].map((r) => r.did))]
}

export interface DomainFilters {
  type?: string | undefined
  class?: string | undefined
  status?: string | undefined
  controller?: string | undefined
  externalId?: string | undefined
  externalIdPrefix?: string | undefined
  organisation?: string | undefined
  project?: string | undefined
  usable?: boolean | undefined
  updatedSince?: Date | undefined
}

export interface DomainOrder {
  sort: 'createdAt' | 'updatedAt'
  order: 'desc' | 'asc'
  /** The keyset position ([time, did]) of the last domain of the previous page. */
  after?: [Date, string] | undefined
}

/** LIKE matches its pattern's `%`, `_` and `\` literally only when escaped. */
const likePrefix = (prefix: string) => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** One page of domains in the order asked for, after the keyset position of `order.after`. */
export async function listDomains (db: Db, filters: DomainFilters, order: DomainOrder, now: Date, limit: number) {
  let query = selectDomains(db)
  if (filters.type !== undefined) query = query.where('domains.type', '=', filters.type)
  if (filters.class !== undefined) query = query.where('domains.class', '=', filters.class)
  if (filters.status !== undefined) query = query.where('domains.status', '=', filters.status)
  if (filters.externalId !== undefined) query = query.where('domains.external_id', '=', filters.externalId)
  if (filters.externalIdPrefix !== undefined) {
    query = query.where('domains.external_id', 'like', likePrefix(filters.externalIdPrefix))
  }
  if (filters.organisation !== undefined) query = query.where('domains.organisation_did', '=', filters.organisation)
  if (filters.project !== undefined) query = query.where('domains.project_did', '=', filters.project)
  if (filters.updatedSince !== undefined) query = query.where('domains.updated_at', '>=', filters.updatedSince)
  if (filters.controller !== undefined) {
    query = query.where(sql<boolean>`domains.controllers @> array[${filters.controller}]::text[]`)
  }
  if (filters.usable !== undefined) {
    // The record's `usable` (records.ts): verified, started, not past validUntil.
    const usable = sql<boolean>`(domains.status = 'verified'
      and (domains.valid_from is null or domains.valid_from <= ${now})
      and (domains.valid_until is null or domains.valid_until > ${now}))`
    query = query.where(filters.usable ? usable : sql<boolean>`not ${usable}`)
  }
  const column = order.sort === 'updatedAt' ? 'domains.updated_at' : 'domains.created_at'
  const after = order.after
  if (after !== undefined) {
    query = query.where((eb) =>
      eb(eb.refTuple(column, 'domains.did'), order.order === 'desc' ? '<' : '>', eb.tuple(after[0], after[1])))
  }
  return await query.orderBy(column, order.order).orderBy('domains.did', order.order).limit(limit).execute()
}

/** Several domains at once (GraphQL loaders batch the domains a page links to). */
export async function findDomains (db: Db, dids: readonly string[]): Promise<DomainWithProposal[]> {
  if (dids.length === 0) return []
  return await selectDomains(db).where('domains.did', 'in', dids).execute()
}
