import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely'
import type { DB } from './types.ts'

type Db = Kysely<DB> | Transaction<DB>

/** A version's public state, from a `domains` row aliased `d`; private metadata and the registrant stay out. */
const snapshotOf = sql`jsonb_build_object(
  'type', d.type, 'class', d.class, 'controllers', to_jsonb(d.controllers), 'status', d.status,
  'validFrom', d.valid_from, 'validUntil', d.valid_until, 'createdAt', d.created_at, 'updatedAt', d.updated_at,
  'verifiedAt', d.verified_at, 'deactivatedAt', d.deactivated_at, 'document', d.document)`

/**
 * Inserts the next version of every domains-shaped row of `rows`: the one place a version is written. `first`:
 * the rows were just inserted, so theirs is version 1 (no lookup).
 */
const nextVersion = sql`coalesce((select max(v.version) from domain_versions v where v.did = d.did), 0) + 1`

export const versionInsert = (rows: RawBuilder<unknown>, options: { first?: boolean } = {}) => sql`
  insert into domain_versions (did, version, at, snapshot)
  select d.did, ${options.first === true ? sql`1` : nextVersion}, d.updated_at, ${snapshotOf}
  from ${rows} d`

/** Records a version of each domain after a change, under its row lock so version numbers cannot race. */
export async function recordVersions (trx: Transaction<DB>, dids: string[]): Promise<void> {
  const unique = [...new Set(dids)]
  if (unique.length === 0) return
  await versionInsert(sql`(select * from domains where did = any(${unique}::text[]))`).execute(trx)
}

export interface VersionSnapshot {
  type: string
  class: string
  controllers: string[]
  status: string
  validFrom: string | null
  validUntil: string | null
  createdAt: string
  updatedAt: string
  verifiedAt: string | null
  deactivatedAt: string | null
  document: Record<string, unknown>
}

export interface VersionRow { version: number, at: Date, snapshot: VersionSnapshot }

/** The latest version and what tells whether a transition is due, in one round trip. */
export async function findLatestVersion (db: Db, did: string) {
  const row = await db.selectFrom('domain_versions as v')
    .innerJoin('domains as d', 'd.did', 'v.did')
    .leftJoin('verification_proposals as p', 'p.id', 'd.latest_proposal_id')
    .select(['v.version', 'v.at', 'v.snapshot', 'd.status', 'd.valid_until'])
    .select(['p.status as p_status', 'p.deadline as p_deadline'])
    .where('v.did', '=', did)
    .orderBy('v.version', 'desc')
    .limit(1)
    .executeTakeFirst()
  if (row === undefined) return undefined
  const { version, at, snapshot, ...due } = row
  return { version: { version, at, snapshot: snapshot as unknown as VersionSnapshot } satisfies VersionRow, due }
}

export interface VersionQuery { versionId?: number | undefined, versionTime?: Date | undefined }

/** The version asked for (latest, by number, or in force at a time) and the one after it, if any. */
export async function findVersion (
  db: Db,
  did: string,
  query: VersionQuery
): Promise<{ current: VersionRow, next: VersionRow | undefined } | undefined> {
  let chosen = db.selectFrom('domain_versions').select(['version', 'at', 'snapshot']).where('did', '=', did)
  if (query.versionId !== undefined) chosen = chosen.where('version', '=', query.versionId)
  if (query.versionTime !== undefined) chosen = chosen.where('at', '<=', query.versionTime)
  const current = await chosen.orderBy('version', 'desc').limit(1).executeTakeFirst() as VersionRow | undefined
  if (current === undefined) return undefined
  // The latest version has no successor: skip the second query on the common path.
  if (query.versionId === undefined && query.versionTime === undefined) return { current, next: undefined }
  const next = await db.selectFrom('domain_versions').select(['version', 'at', 'snapshot'])
    .where('did', '=', did).where('version', '>', current.version)
    .orderBy('version').limit(1).executeTakeFirst() as VersionRow | undefined
  return { current, next }
}
