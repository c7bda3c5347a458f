import type { Insertable, Kysely, Transaction, Updateable } from 'kysely'
import type {
  DB, ProposalRow, ProposalSnapshotsTable, VerificationProposalsTable, VerificationVotesTable
} from './types.ts'

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

/** Records what a proposal reviews, per domain. */
export async function insertSnapshots (
  trx: Transaction<DB>,
  snapshots: Array<Insertable<ProposalSnapshotsTable>>
): Promise<void> {
  if (snapshots.length === 0) return
  await trx.insertInto('proposal_snapshots').values(snapshots).execute()
}

/** The snapshot a proposal took of one domain (its own, for a single-domain proposal). */
export async function findSnapshot (db: Db, proposalId: string, did: string) {
  return await db.selectFrom('proposal_snapshots').select(['hash', 'content'])
    .where('proposal_id', '=', proposalId).where('domain_did', '=', did).executeTakeFirst()
}

const BALLOT_COLUMNS = [
  'voter_key', 'voter_account', 'voter_service', 'vote', 'rationale', 'cast_at', 'superseded_at'
] as const

/** Records a ballot; the caller has superseded the account's previous one (one current ballot per account). */
export async function insertVote (
  trx: Transaction<DB>,
  vote: Insertable<VerificationVotesTable>
): Promise<void> {
  await trx.insertInto('verification_votes').values(vote).execute()
}

/** The ballot of `account` that counts on the proposal, if it has voted. */
export async function currentBallot (db: Db, proposalId: string, account: string) {
  return await db.selectFrom('verification_votes').select(['id', 'vote', 'rationale'])
    .where('proposal_id', '=', proposalId).where('voter_account', '=', account).where('superseded_at', 'is', null)
    .executeTakeFirst()
}

export async function supersedeBallot (trx: Transaction<DB>, id: string, at: Date): Promise<void> {
  await trx.updateTable('verification_votes').set({ superseded_at: at }).where('id', '=', id).execute()
}

/** Every ballot on the proposal in casting order, changed ones included. */
export async function listVotes (db: Db, proposalId: string) {
  return await db.selectFrom('verification_votes').select(BALLOT_COLUMNS)
    .where('proposal_id', '=', proposalId).orderBy('cast_at').orderBy('id').execute()
}

/** Accounts holding `role` now, but for `except`, in code-point order (as every electorate is listed). */
export async function roleHolders (db: Db, role: string, except: string[]): Promise<string[]> {
  const rows = await db.selectFrom('account_roles').select('account')
    .where('role', '=', role)
    .$if(except.length > 0, (q) => q.where('account', 'not in', except))
    .execute()
  return rows.map((r) => r.account).sort()
}

const ELECTORATE_CHUNK = 5000

/** Records who may vote and who may veto on a new proposal. */
export async function insertElectorate (
  trx: Transaction<DB>,
  proposalId: string,
  members: { voters: string[], vetoers: string[] }
): Promise<void> {
  const rows = [
    ...members.voters.map((account) => ({ proposal_id: proposalId, account, role: 'voter' })),
    ...members.vetoers.map((account) => ({ proposal_id: proposalId, account, role: 'vetoer' }))
  ]
  for (let i = 0; i < rows.length; i += ELECTORATE_CHUNK) {
    await trx.insertInto('verification_electorates').values(rows.slice(i, i + ELECTORATE_CHUNK)).execute()
  }
}

/** Of `accounts`, those holding `role` now. */
export async function accountsHolding (db: Db, role: string, accounts: string[]): Promise<string[]> {
  if (accounts.length === 0) return []
  const rows = await db.selectFrom('account_roles').select('account')
    .where('role', '=', role).where('account', 'in', accounts).execute()
  return rows.map((r) => r.account)
}

/** What `account` may do on the proposal: vote (voter), veto (vetoer), both or neither. */
export async function electorateRolesOf (db: Db, proposalId: string, account: string): Promise<string[]> {
  const rows = await db.selectFrom('verification_electorates').select('role')
    .where('proposal_id', '=', proposalId).where('account', '=', account).execute()
  return rows.map((r) => r.role)
}

export async function listElectorate (db: Db, proposalId: string) {
  const rows = await db.selectFrom('verification_electorates').select(['account', 'role'])
    .where('proposal_id', '=', proposalId).execute()
  // Sorted here, not by the database's collation, so an electorate reads the same wherever it is listed.
  return {
    voters: rows.filter((r) => r.role === 'voter').map((r) => r.account).sort(),
    vetoers: rows.filter((r) => r.role === 'vetoer').map((r) => r.account).sort()
  }
}

export interface ProposalFilters {
  domainDid?: string
  status?: string
  kind?: string
  /** Only proposals this account may vote on or veto. */
  voter?: string
  /** With voter: whether it has a ballot that counts. */
  voted?: boolean
}

/** One page of proposals, newest first, after the keyset position `after` ([createdAt, id]). */
export async function listProposalPage (
  db: Db,
  filters: ProposalFilters,
  after: [Date, string] | undefined,
  limit: number
): Promise<ProposalRow[]> {
  let query = db.selectFrom('verification_proposals as p').selectAll('p')
  const did = filters.domainDid
  if (did !== undefined) {
    // Its own proposals, and the collections it is (or was) a member of.
    query = query.where('p.id', 'in', (eb) => eb.selectFrom('proposal_snapshots').select('proposal_id')
      .where('domain_did', '=', did)
      .unionAll(eb.selectFrom('verification_proposals').select('id as proposal_id').where('domain_did', '=', did)))
  }
  if (filters.status !== undefined) query = query.where('p.status', '=', filters.status)
  if (filters.kind !== undefined) query = query.where('p.kind', '=', filters.kind)
  const voter = filters.voter
  if (voter !== undefined) {
    query = query.where(({ exists, selectFrom }) => exists(selectFrom('verification_electorates as e')
      .select('e.proposal_id').whereRef('e.proposal_id', '=', 'p.id').where('e.account', '=', voter)))
    if (filters.voted !== undefined) {
      query = query.where(({ exists, not, selectFrom }) => {
        const ballot = exists(selectFrom('verification_votes as v').select('v.proposal_id')
          .whereRef('v.proposal_id', '=', 'p.id').where('v.voter_account', '=', voter)
          .where('v.superseded_at', 'is', null))
        return filters.voted === true ? ballot : not(ballot)
      })
    }
  }
  if (after !== undefined) {
    query = query.where((eb) => eb(eb.refTuple('p.created_at', 'p.id'), '<', eb.tuple(after[0], after[1])))
  }
  return await query.orderBy('p.created_at', 'desc').orderBy('p.id', 'desc').limit(limit).execute()
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
    .select(['proposal_id', ...BALLOT_COLUMNS])
    .where('proposal_id', 'in', proposalIds)
    .orderBy('proposal_id').orderBy('cast_at').orderBy('id').execute()
}
