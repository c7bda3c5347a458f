import type { Insertable, Kysely, Transaction, Updateable } from 'kysely'
import type { DB, ProposalRow, VerificationProposalsTable } from './types.ts'

type Db = Kysely<DB> | Transaction<DB>

export async function insertProposal (
  trx: Transaction<DB>,
  proposal: Insertable<VerificationProposalsTable>
): Promise<ProposalRow> {
  return await trx.insertInto('verification_proposals').values(proposal).returningAll().executeTakeFirstOrThrow()
}

export async function findProposal (db: Db, id: string): Promise<ProposalRow | undefined> {
  return await db.selectFrom('verification_proposals').selectAll().where('id', '=', id).executeTakeFirst()
}

/** Locks a proposal; callers lock its domain first, so every writer takes the locks in the same order. */
export async function lockProposal (trx: Transaction<DB>, id: string): Promise<ProposalRow | undefined> {
  return await trx.selectFrom('verification_proposals').selectAll().where('id', '=', id).forUpdate().executeTakeFirst()
}

export async function updateProposal (
  trx: Transaction<DB>,
  id: string,
  changes: Updateable<VerificationProposalsTable>
): Promise<ProposalRow> {
  return await trx
    .updateTable('verification_proposals')
    .set(changes)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow()
}

export async function listProposals (db: Db, did: string): Promise<ProposalRow[]> {
  return await db
    .selectFrom('verification_proposals')
    .selectAll()
    .where('domain_did', '=', did)
    .orderBy('created_at', 'desc')
    .limit(100)
    .execute()
}

/** Records a vote; resolves false when this key has already voted on the proposal. */
export async function insertVote (
  trx: Transaction<DB>,
  vote: { proposal_id: string, voter_key: string, voter_account: string, vote: string, cast_at: Date }
): Promise<boolean> {
  const row = await trx
    .insertInto('verification_votes')
    .values(vote)
    .onConflict((oc) => oc.columns(['proposal_id', 'voter_key']).doNothing())
    .returning('voter_key').executeTakeFirst()
  return row !== undefined
}

export async function listVotes (db: Db, proposalId: string) {
  return await db.selectFrom('verification_votes')
    .select(['voter_key', 'voter_account', 'voter_service', 'vote', 'cast_at'])
    .where('proposal_id', '=', proposalId).orderBy('cast_at').orderBy('voter_key').execute()
}

/** Several proposals with their domain's status and validity end (to tell which are due for settling). */
export async function findProposalsWithDomain (db: Db, ids: readonly string[]) {
  if (ids.length === 0) return []
  return await db.selectFrom('verification_proposals as p')
    .innerJoin('domains as d', 'd.did', 'p.domain_did')
    .selectAll('p')
    .select(['d.status as d_status', 'd.valid_until as d_valid_until'])
    .where('p.id', 'in', ids)
    .execute()
}

/** The votes on several proposals, each proposal's in casting order. */
export async function listVotesOf (db: Db, proposalIds: readonly string[]) {
  if (proposalIds.length === 0) return []
  return await db.selectFrom('verification_votes')
    .select(['proposal_id', 'voter_key', 'voter_account', 'voter_service', 'vote', 'cast_at'])
    .where('proposal_id', 'in', proposalIds)
    .orderBy('proposal_id').orderBy('cast_at').orderBy('voter_key').execute()
}

export async function hasVoted (db: Db, proposalId: string, account: string): Promise<boolean> {
  const row = await db.selectFrom('verification_votes').select('proposal_id')
    .where('proposal_id', '=', proposalId).where('voter_account', '=', account).executeTakeFirst()
  return row !== undefined
}
