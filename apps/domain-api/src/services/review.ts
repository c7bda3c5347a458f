import type { Transaction } from 'kysely'
import type { DomainChanges } from '../db/domain.repository.ts'
import { updateProposal } from '../db/proposal.repository.ts'
import type { DB, DomainRow, ProposalRow } from '../db/types.ts'
import type { contentChanges } from './snapshot.ts'

/** What an edit of a domain does to its verification and to a proposal open on it. */

export interface Review {
  /** The history entry of the edit: updated, changed (a verified domain's reviewed content) or renewed. */
  event: 'updated' | 'changed' | 'renewed'
  reason?: string
  /** Status and verification columns the edit sets. */
  changes: DomainChanges
  /** The reviewed fields the edit changes, with before and after values. */
  diff: ReturnType<typeof contentChanges>
  /** The open proposal whose snapshot the edit makes stale. */
  supersedes?: ProposalRow
}

export function reviewOf (
  domain: DomainRow,
  latest: ProposalRow | undefined,
  diff: Review['diff'],
  validUntilSent: boolean
): Review {
  if (domain.status === 'expired' && validUntilSent) {
    // An expired domain is renewed to draft: its former verification no longer applies.
    return {
      event: 'renewed',
      reason: 'validity renewed; the domain needs verification again',
      changes: { status: 'draft', verified_at: null, verified_hash: null },
      diff
    }
  }
  const fields = Object.keys(diff)
  if (fields.length === 0) return { event: 'updated', changes: {}, diff }

  const open = latest?.status === 'open' ? latest : undefined
  // A superseded verification leaves the domain where it was when the proposal opened.
  let status = open?.kind === 'verify' ? open.prior_status ?? 'draft' : domain.status
  if (status === 'verified') status = 'changed'
  const changes: DomainChanges = {}
  if (status !== domain.status) changes.status = status
  // A verification covers the content it reviewed, and no other.
  if (domain.verified_at !== null) changes.verified_at = null
  const review: Review = { event: 'updated', changes, diff }
  if (open !== undefined) review.supersedes = open
  if (domain.status === 'verified') {
    review.event = 'changed'
    review.reason = `changed ${fields.join(', ')} after verification: not usable until a new verification passes`
  }
  return review
}

/** Closes an open proposal whose snapshot no longer matches the domain's content. */
export async function supersede (
  trx: Transaction<DB>,
  proposal: ProposalRow,
  contentHash: string,
  at: Date
): Promise<ProposalRow> {
  return await updateProposal(trx, proposal.id, {
    status: 'superseded',
    closed_at: at,
    outcome_reason: `superseded: the reviewed content changed while it was open (snapshot ${proposal.snapshot_hash ??
      'not recorded'}, now ${contentHash})`
  })
}
