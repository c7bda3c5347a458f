import type { Transaction } from 'kysely'
import { findMember } from '../db/collection.repository.ts'
import type { DomainChanges } from '../db/domain.repository.ts'
import { findProposal, updateProposal } from '../db/proposal.repository.ts'
import type { DB, DomainRow, ProposalRow } from '../db/types.ts'
import { isCollection, withdrawFromCollection } from './collections.ts'
import type { contentChanges } from './snapshot.ts'

export interface Review {
  /** The history entry of the edit: updated, changed (a verified domain's reviewed content) or renewed. */
  event: 'updated' | 'changed' | 'renewed'
  reason?: string
  changes: DomainChanges
  diff: ReturnType<typeof contentChanges>
  /** The open proposal whose snapshot the edit made stale, closed (or, for a collection, left by the domain). */
  superseded?: { id: string, kind: string, snapshotHash: string | null, reason: string }
  latest: ProposalRow | undefined
}

/** Closes a superseded proposal; the caller writes the domain and the history. */
export async function reviewEdit (
  trx: Transaction<DB>,
  domain: DomainRow,
  latest: ProposalRow | undefined,
  diff: Review['diff'],
  edit: { validUntilSent: boolean, contentHash: string, at: Date }
): Promise<Review> {
  if (domain.status === 'expired' && edit.validUntilSent) {
    // An expired domain is renewed to draft: its former verification no longer applies.
    return {
      event: 'renewed',
      reason: 'validity renewed; the domain needs verification again',
      changes: { status: 'draft', verified_at: null, verified_hash: null },
      diff,
      latest
    }
  }
  const fields = Object.keys(diff)
  if (fields.length === 0) return { event: 'updated', changes: {}, diff, latest }

  const open = latest?.status === 'open' ? latest : undefined
  const member = open !== undefined && isCollection(open) ? await findMember(trx, open.id, domain.did) : undefined
  // A superseded verification leaves the domain where it was when the proposal opened.
  const prior = member !== undefined ? member.prior_status : open?.kind === 'verify' ? open.prior_status : undefined
  let status = open !== undefined && prior !== undefined ? prior ?? 'draft' : domain.status
  if (status === 'verified') status = 'changed'
  const changes: DomainChanges = {}
  if (status !== domain.status) changes.status = status
  // A verification covers the content it reviewed, and no other.
  if (domain.verified_at !== null) changes.verified_at = null
  const review: Review = { event: 'updated', changes, diff, latest }
  if (domain.status === 'verified') {
    review.event = 'changed'
    review.reason = `changed ${fields.join(', ')} after verification: not usable until a new verification passes`
  }
  if (open === undefined) return review

  const stale = `the reviewed content changed while it was open (snapshot ${member?.hash ?? open.snapshot_hash ??
    'not recorded'}, now ${edit.contentHash})`
  if (member !== undefined) {
    const back = await withdrawFromCollection(trx, open, domain.did, edit.at, stale)
    changes.latest_proposal_id = back.latest_proposal_id
    review.latest = back.latest_proposal_id === null ? undefined : await findProposal(trx, back.latest_proposal_id)
    review.superseded = {
      id: open.id, kind: open.kind, snapshotHash: member.hash, reason: `left the collection proposal: ${stale}`
    }
  } else {
    review.latest = await updateProposal(trx, open.id, {
      status: 'superseded', closed_at: edit.at, outcome_reason: `superseded: ${stale}`
    })
    review.superseded = {
      id: open.id, kind: open.kind, snapshotHash: open.snapshot_hash, reason: `superseded: ${stale}`
    }
  }
  return review
}
