import { sql, type Kysely, type Transaction } from 'kysely'
import type { DB, DomainRow } from './types.ts'

type Db = Kysely<DB> | Transaction<DB>

/** Statuses a domain may be verified from; a collection takes the project's domains in them. */
export const VERIFIABLE = ['draft', 'rejected', 'changed', 'revoked']

/**
 * The domains of `project` a collection may verify now (verifiable, not expired), oldest first, locked for the
 * transaction. None of them is in an open proposal, so no closing collection holds their locks.
 */
export async function lockCollectable (
  trx: Transaction<DB>,
  project: string,
  now: Date,
  limit: number
): Promise<DomainRow[]> {
  return await trx.selectFrom('domains').selectAll()
    .where('project_did', '=', project)
    .where('status', 'in', VERIFIABLE)
    .where((eb) => eb.or([eb('valid_until', 'is', null), eb('valid_until', '>', now)]))
    .orderBy('created_at').orderBy('did')
    .limit(limit)
    .forUpdate()
    .execute()
}

/** Every controller of the domains `dids`, each once. */
export async function controllersOf (db: Db, dids: string[]): Promise<string[]> {
  if (dids.length === 0) return []
  const rows = await sql<{ account: string }>`
    select distinct unnest(controllers) as account from domains where did = any(${dids}::text[])`.execute(db)
  return rows.rows.map((r) => r.account)
}

/** Locks the domains still in the collection, in DID order (after the collection's own row). */
export async function lockMembers (trx: Transaction<DB>, proposalId: string): Promise<string[]> {
  const rows = await trx.selectFrom('domains as d')
    .innerJoin('proposal_snapshots as s', 's.domain_did', 'd.did')
    .select('d.did')
    .where('s.proposal_id', '=', proposalId).where('s.withdrawn_at', 'is', null)
    .orderBy('d.did')
    .forUpdate('d')
    .execute()
  return rows.map((r) => r.did)
}

/** Members still in the collection (locked by the caller) whose validUntil had passed at `at`. */
export async function membersExpiredBy (trx: Transaction<DB>, proposalId: string, at: Date): Promise<DomainRow[]> {
  return await trx.selectFrom('domains as d')
    .innerJoin('proposal_snapshots as s', 's.domain_did', 'd.did')
    .selectAll('d')
    .where('s.proposal_id', '=', proposalId).where('s.withdrawn_at', 'is', null)
    .where('d.status', '=', 'verification_submitted').where('d.valid_until', '<=', at)
    .orderBy('d.did')
    .execute()
}

/** A domain's place in a proposal: its snapshot, and where a withdrawn member goes back to. */
export async function findMember (db: Db, proposalId: string, did: string) {
  return await db.selectFrom('proposal_snapshots')
    .select(['hash', 'prior_status', 'prior_proposal_id', 'withdrawn_at'])
    .where('proposal_id', '=', proposalId).where('domain_did', '=', did)
    .executeTakeFirst()
}

export async function withdrawMember (
  trx: Transaction<DB>,
  proposalId: string,
  did: string,
  at: Date,
  reason: string
): Promise<void> {
  await trx.updateTable('proposal_snapshots').set({ withdrawn_at: at, withdrawn_reason: reason })
    .where('proposal_id', '=', proposalId).where('domain_did', '=', did).execute()
}

/** Whether `account` controls a domain still in the collection. */
export async function controlsMember (db: Db, proposalId: string, account: string): Promise<boolean> {
  const row = await db.selectFrom('proposal_snapshots as s')
    .innerJoin('domains as d', 'd.did', 's.domain_did')
    .select('d.did')
    .where('s.proposal_id', '=', proposalId).where('s.withdrawn_at', 'is', null)
    .where(sql<boolean>`d.controllers @> array[${account}]::text[]`)
    .limit(1)
    .executeTakeFirst()
  return row !== undefined
}

export interface CollectionOutcome {
  proposalId: string
  passed: boolean
  at: Date
  event: string
  reason: string
  /** The history entry's details; each member's adds its own snapshotHash. */
  details: Record<string, unknown>
}

/**
 * Applies a collection's outcome to the members still in it (locked by the caller), each verified with its own
 * snapshot hash or rejected, with a history entry each, in one statement; the DIDs it changed.
 */
export async function applyCollectionOutcome (trx: Transaction<DB>, o: CollectionOutcome): Promise<string[]> {
  const to = o.passed ? 'verified' : 'rejected'
  const result = await sql<{ did: string }>`
    with updated as (
      update domains d set status = ${to}, updated_at = ${o.at},
        verified_at = case when ${o.passed} then ${o.at}::timestamptz else d.verified_at end,
        verified_hash = case when ${o.passed} then s.hash else d.verified_hash end
      from proposal_snapshots s
      where s.proposal_id = ${o.proposalId} and s.withdrawn_at is null and d.did = s.domain_did
        and d.status = 'verification_submitted' and d.latest_proposal_id = ${o.proposalId}
      returning d.did, s.hash
    )
    insert into domain_events (domain_did, event, from_status, to_status, actor_kind, proposal_id, reason, details, at)
    select did, ${o.event}, 'verification_submitted', ${to}, 'governance', ${o.proposalId}, ${o.reason},
      ${JSON.stringify(o.details)}::jsonb || jsonb_build_object('snapshotHash', hash), ${o.at}
    from updated
    returning domain_did as did
  `.execute(trx)
  return result.rows.map((r) => r.did)
}

/** Open collections whose voting period has ended at `now`, oldest deadline first. */
export async function dueCollectionIds (db: Db, now: Date, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('verification_proposals').select('id')
    .where('status', '=', 'open').where('kind', '=', 'collection').where('deadline', '<=', now)
    .orderBy('deadline').limit(limit).execute()
  return rows.map((r) => r.id)
}

/** One page of a proposal's members in DID order, after `after`. */
export async function listMembers (db: Db, proposalId: string, after: string | undefined, limit: number) {
  let query = db.selectFrom('proposal_snapshots')
    .select(['domain_did', 'hash', 'withdrawn_at', 'withdrawn_reason'])
    .where('proposal_id', '=', proposalId)
  if (after !== undefined) query = query.where('domain_did', '>', after)
  return await query.orderBy('domain_did').limit(limit).execute()
}
