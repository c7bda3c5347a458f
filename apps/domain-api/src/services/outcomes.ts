import type { Transaction } from 'kysely'
import type { ProposalKind } from '@impact/schemas'
import { updateDomain, type DomainChanges } from '../db/domain.repository.ts'
import { insertEvents } from '../db/event.repository.ts'
import { updateProposal } from '../db/proposal.repository.ts'
import type { DB, DomainRow, NewEvent, ProposalRow } from '../db/types.ts'
import { contentHashOf } from './snapshot.ts'
import { describeTally, passes, tallyOf } from './tally.ts'

/** What each kind of proposal does to its domain: the same vote rules decide them all. */

export type Outcome = 'passed' | 'rejected' | 'vetoed'

/** The history entries a kind's proposal writes when it opens, passes, and fails (rejected or vetoed). */
export const KIND_EVENTS: Record<ProposalKind, { proposed: string, passed: string, failed: string }> = {
  verify: { proposed: 'verification_proposed', passed: 'verified', failed: 'rejected' },
  revoke: { proposed: 'revocation_proposed', passed: 'revoked', failed: 'revocation_rejected' },
  validity: { proposed: 'validity_proposed', passed: 'validity_changed', failed: 'validity_rejected' },
  // Written on each member: a collection verifies them one by one.
  collection: { proposed: 'verification_proposed', passed: 'verified', failed: 'rejected' }
}

export const kindOf = (proposal: Pick<ProposalRow, 'kind'>) => proposal.kind as ProposalKind

/** The status a domain is in while a proposal of the kind is open on it (the kind's precondition too). */
export const statusUnderReview = (kind: ProposalKind) =>
  (kind === 'revoke' || kind === 'validity' ? 'verified' : 'verification_submitted')

function domainChanges (domain: DomainRow, proposal: ProposalRow, passed: boolean, at: Date): DomainChanges {
  switch (kindOf(proposal)) {
    case 'revoke':
      return passed ? { status: 'revoked', verified_at: null, verified_hash: null, updated_at: at } : { updated_at: at }
    case 'validity': {
      if (!passed) return { updated_at: at }
      // A new validUntil is part of the content the verification now covers.
      const validUntil = proposal.valid_until
      const verifiedHash = contentHashOf({ ...domain, valid_until: validUntil })
      return { valid_until: validUntil, verified_hash: verifiedHash, updated_at: at }
    }
    default:
      return passed
        ? { status: 'verified', verified_at: at, verified_hash: proposal.snapshot_hash, updated_at: at }
        : { status: 'rejected', updated_at: at }
  }
}

/** The history entry of an expiry, at `at`; `note` says what became of a proposal open on the domain. */
export const expiredEvent = (
  domain: DomainRow,
  at: Date,
  proposalId: string | null,
  note = ''
): NewEvent => ({
  domain_did: domain.did,
  event: 'expired',
  from_status: domain.status,
  to_status: 'expired',
  actor_kind: 'system',
  proposal_id: proposalId,
  reason: `validUntil ${domain.valid_until?.toISOString() ?? ''} passed${note}`,
  at
})

export interface Closing {
  outcome: Outcome
  at: Date
  reason: string
  /** Added to the history entry's details (the deciding vote). */
  details?: Record<string, unknown>
}

/** How a proposal closes when its voting period ends: passed if the votes then pass, else rejected. */
export function closingAtDeadline (proposal: ProposalRow): Closing {
  const passed = passes(proposal)
  return {
    outcome: passed ? 'passed' : 'rejected',
    at: proposal.deadline,
    reason: passed
      ? `passed at the end of the voting period (${describeTally(proposal)})`
      : `voting period ended without passing (${describeTally(proposal)})`
  }
}

/**
 * Closes an open proposal with its outcome and applies it to its domain (both locked by the caller, domain
 * first), writing the domain's history entry. The caller records the domain's new version.
 */
export async function closeProposal (
  trx: Transaction<DB>,
  domain: DomainRow,
  proposal: ProposalRow,
  closing: Closing
): Promise<{ domain: DomainRow, proposal: ProposalRow }> {
  const closed = await updateProposal(trx, proposal.id, {
    status: closing.outcome, closed_at: closing.at, outcome_reason: closing.reason
  })
  const kind = kindOf(closed)
  // A proposal whose domain left the state it reviews (none should) closes without touching it.
  if (domain.status !== statusUnderReview(kind)) return { domain, proposal: closed }
  const passed = closing.outcome === 'passed'
  const updated = await updateDomain(trx, domain.did, domainChanges(domain, closed, passed, closing.at))
  const changes = kind === 'validity' && passed
    ? { validUntil: { before: domain.valid_until?.toISOString() ?? null, after: closed.valid_until?.toISOString() } }
    : {}
  await insertEvents(trx, [{
    domain_did: domain.did,
    event: passed ? KIND_EVENTS[kind].passed : KIND_EVENTS[kind].failed,
    from_status: domain.status,
    to_status: updated.status,
    actor_kind: 'governance',
    proposal_id: closed.id,
    reason: closing.reason,
    details: JSON.stringify({
      kind,
      outcome: closing.outcome,
      tally: tallyOf(closed),
      snapshotHash: closed.snapshot_hash,
      ...(Object.keys(changes).length > 0 ? { changes } : {}),
      ...closing.details
    }),
    at: closing.at
  }])
  return { domain: updated, proposal: closed }
}
