import type { Kysely, Transaction } from 'kysely'
import { inTransaction } from '@impact/persistence'
import {
  applyCollectionOutcome, dueCollectionIds, findMember, lockMembers, membersExpiredBy, withdrawMember
} from '../db/collection.repository.ts'
import { updateDomain } from '../db/domain.repository.ts'
import { insertEvents } from '../db/event.repository.ts'
import { lockProposal, updateProposal } from '../db/proposal.repository.ts'
import { recordVersions } from '../db/version.repository.ts'
import type { DB, DomainRow, ProposalRow } from '../db/types.ts'
import { closingAtDeadline, expiredEvent, KIND_EVENTS, type Closing } from './outcomes.ts'
import { tallyOf } from './tally.ts'

// Lock order: the collection's row, then its members in DID order, so closings and member edits never deadlock.

export const isCollection = (proposal: Pick<ProposalRow, 'kind'> | undefined) => proposal?.kind === 'collection'

/** Closes an open collection (row locked by the caller); members that expired before the closing leave it. */
export async function closeCollection (
  trx: Transaction<DB>,
  proposal: ProposalRow,
  closing: Closing
): Promise<ProposalRow> {
  await lockMembers(trx, proposal.id)
  for (const member of await membersExpiredBy(trx, proposal.id, closing.at)) {
    await expireMember(trx, proposal, member, member.valid_until!)
    await recordVersions(trx, [member.did])
  }
  const closed = await updateProposal(trx, proposal.id, {
    status: closing.outcome, closed_at: closing.at, outcome_reason: closing.reason
  })
  const passed = closing.outcome === 'passed'
  const dids = await applyCollectionOutcome(trx, {
    proposalId: proposal.id,
    passed,
    at: closing.at,
    event: passed ? KIND_EVENTS.collection.passed : KIND_EVENTS.collection.failed,
    reason: closing.reason,
    details: { kind: 'collection', outcome: closing.outcome, tally: tallyOf(closed), ...closing.details }
  })
  await recordVersions(trx, dids)
  return closed
}

/** Locks a collection, closing it first if its voting period has ended at `now`. */
export async function lockCollection (
  trx: Transaction<DB>,
  id: string,
  now: Date
): Promise<ProposalRow | undefined> {
  const proposal = await lockProposal(trx, id)
  if (proposal?.status !== 'open' || proposal.deadline > now) return proposal
  return await closeCollection(trx, proposal, closingAtDeadline(proposal))
}

export async function settleCollection (db: Kysely<DB>, id: string, now: Date): Promise<void> {
  await inTransaction(db, async (trx) => { await lockCollection(trx, id, now) })
}

/** Settles the collections whose period has ended, in batches; how many it looked at. */
export async function settleDueCollections (db: Kysely<DB>, now: Date, batch: number): Promise<number> {
  const ids = await dueCollectionIds(db, now, batch)
  for (const id of ids) await settleCollection(db, id, now)
  return ids.length
}

/** A member's expiry while its collection is open: it leaves the collection (both locked by the caller). */
export async function expireMember (
  trx: Transaction<DB>,
  proposal: ProposalRow,
  domain: DomainRow,
  at: Date
): Promise<DomainRow> {
  const back = await withdrawFromCollection(trx, proposal, domain.did, at, 'the domain expired')
  await insertEvents(trx, [expiredEvent(domain, at, proposal.id, '; the domain left the open collection proposal')])
  return await updateDomain(trx, domain.did, {
    status: 'expired', latest_proposal_id: back.latest_proposal_id, updated_at: at
  })
}

/** The rest are still voted on; returns the member's status and latest proposal from before it joined. */
export async function withdrawFromCollection (
  trx: Transaction<DB>,
  proposal: ProposalRow,
  did: string,
  at: Date,
  reason: string
): Promise<{ status: string, latest_proposal_id: string | null }> {
  const member = await findMember(trx, proposal.id, did)
  await withdrawMember(trx, proposal.id, did, at, reason)
  return { status: member?.prior_status ?? 'draft', latest_proposal_id: member?.prior_proposal_id ?? null }
}
