import { randomUUID } from 'node:crypto'
import type { Kysely } from 'kysely'
import { inTransaction } from '@impact/persistence'
import { findDomain, updateDomain } from '../db/domain.repository.ts'
import { insertEvents } from '../db/event.repository.ts'
import { recordVersions } from '../db/version.repository.ts'
import {
  findProposal,
  hasVoted,
  insertProposal,
  insertVote,
  listVotes,
  lockProposal,
  updateProposal
} from '../db/proposal.repository.ts'
import type { DB, ProposalRow } from '../db/types.ts'
import {
  DomainAlreadyVotedError,
  DomainNotFoundError,
  DomainProposalClosedError,
  DomainProposalNotFoundError,
  DomainStateConflictError
} from '../errors.ts'
import type { CreateProposalBody, Proposal, VoteChoice } from '@impact/schemas'
import { principalOf, type Caller } from './api-keys.ts'
import type { Clock } from './clock.ts'
import { callerEvent, describeTally, isDue, lockAndSettle, settleDomain } from './lifecycle.ts'
import { toProposal } from './records.ts'

export interface VerificationSettings {
  /** Votes (any choice) needed before a proposal can pass. */
  quorum: number
  /** Fraction of yes among yes+no needed to pass. */
  threshold: number
  periodMs: number
}

/**
 * A proposal passes the moment at least `quorum` votes are cast and yes/(yes+no) reaches the
 * threshold. Both sides are exact: an integer ratio and a decimal threshold that are equal as
 * numbers round to the same double.
 */
export function passes (p: Pick<ProposalRow, 'yes' | 'no' | 'abstain' | 'quorum' | 'threshold'>): boolean {
  const decisive = p.yes + p.no
  return p.yes + p.no + p.abstain >= p.quorum && decisive > 0 && p.yes / decisive >= p.threshold
}

const REFUSALS: Record<string, string> = {
  deactivated: 'is deactivated',
  expired: 'has expired (renew validUntil first)',
  verified: 'is already verified',
  verification_submitted: 'already has an open verification proposal'
}

export function createGovernanceService (
  { db, clock, settings }: { db: Kysely<DB>, clock: Clock, settings: VerificationSettings }
) {
  async function read (id: string): Promise<Proposal> {
    const now = clock()
    let row = await findProposal(db, id)
    // An open proposal closes when its period ends or when its domain expires first.
    const domain = row?.status === 'open' ? await findDomain(db, row.domain_did) : undefined
    if (
      row !== undefined && domain !== undefined &&
      isDue(domain, { status: row.status, deadline: row.deadline }, now)
    ) {
      await settleDomain(db, row.domain_did, now)
      row = await findProposal(db, id)
    }
    if (row === undefined) throw new DomainProposalNotFoundError(id)
    return toProposal(row, await listVotes(db, id))
  }

  return {
    get: read,

    /** Opens the review of a draft or rejected domain; quorum, threshold and deadline are fixed now. */
    async propose (caller: Caller, did: string, body: CreateProposalBody): Promise<Proposal> {
      const now = clock()
      const proposal = await inTransaction(db, async (trx) => {
        const locked = await lockAndSettle(trx, did, now)
        if (locked === undefined) throw new DomainNotFoundError(did)
        const { domain } = locked
        const refusal = REFUSALS[domain.status]
        if (refusal !== undefined) throw new DomainStateConflictError(`Domain ${did} ${refusal}`)
        const created = await insertProposal(trx, {
          id: randomUUID(),
          domain_did: did,
          status: 'open',
          evidence: body.evidence,
          evidence_hash: body.evidenceHash ?? null,
          note: body.note ?? null,
          proposed_by_key: caller.keyId,
          proposed_by_account: caller.account,
          proposed_by_service: caller.service,
          quorum: settings.quorum,
          threshold: settings.threshold,
          deadline: new Date(now.getTime() + settings.periodMs),
          created_at: now
        })
        await updateDomain(trx, did, {
          status: 'verification_submitted',
          latest_proposal_id: created.id,
          updated_at: now
        })
        await insertEvents(trx, [callerEvent(caller, domain, {
          event: 'verification_proposed',
          to_status: 'verification_submitted',
          proposal_id: created.id,
          reason: body.note ?? 'verification proposed',
          details: JSON.stringify({
            evidence: body.evidence,
            evidenceHash: body.evidenceHash ?? null,
            deadline: created.deadline.toISOString(),
            quorum: created.quorum,
            threshold: created.threshold
          }),
          at: now
        })])
        await recordVersions(trx, [did])
        return created
      })
      return toProposal(proposal, [])
    },

    /**
     * Casts one vote. The domain row and then the proposal row are locked, so concurrent votes
     * are counted one after another and the tally is exact; the (proposal, key) primary key
     * makes a second vote by the same key impossible rather than merely unlikely.
     */
    async vote (caller: Caller, id: string, choice: VoteChoice): Promise<Proposal> {
      const now = clock()
      const found = await findProposal(db, id)
      if (found === undefined) throw new DomainProposalNotFoundError(id)
      const outcome = await inTransaction(db, async (trx) => {
        const locked = await lockAndSettle(trx, found.domain_did, now)
        const proposal = locked?.proposal?.id === id ? locked.proposal : await lockProposal(trx, id)
        if (locked === undefined || proposal === undefined) throw new DomainProposalNotFoundError(id)
        // Settling may just have closed it; that is committed along with this answer.
        if (proposal.status !== 'open') return { closed: proposal.status }
        const vote = {
          proposal_id: id,
          voter_key: principalOf(caller),
          voter_account: caller.account,
          voter_service: caller.service,
          vote: choice,
          cast_at: now
        }
        // One vote per account, whichever of its keys (or UCAN) casts it; the proposal row is locked.
        if (await hasVoted(trx, id, caller.account) || !await insertVote(trx, vote)) {
          return { duplicate: true }
        }
        let tallied = await updateProposal(trx, id, { [choice]: proposal[choice] + 1 })
        await insertEvents(trx, [callerEvent(caller, locked.domain, {
          event: 'vote_cast',
          to_status: locked.domain.status,
          proposal_id: id,
          reason: `voted ${choice}`,
          details: JSON.stringify({
            vote: choice,
            tally: { yes: tallied.yes, no: tallied.no, abstain: tallied.abstain }
          }),
          at: now
        })])
        if (passes(tallied)) {
          const reason = `passed (${describeTally(tallied)})`
          tallied = await updateProposal(trx, id, { status: 'passed', closed_at: now, outcome_reason: reason })
          await updateDomain(trx, tallied.domain_did, { status: 'verified', verified_at: now, updated_at: now })
          await insertEvents(trx, [{
            domain_did: tallied.domain_did,
            event: 'verified',
            from_status: locked.domain.status,
            to_status: 'verified',
            actor_kind: 'governance',
            proposal_id: id,
            reason,
            details: JSON.stringify({
              tally: { yes: tallied.yes, no: tallied.no, abstain: tallied.abstain },
              decidingVote: { keyId: caller.keyId, account: caller.account, vote: choice }
            }),
            at: now
          }])
          await recordVersions(trx, [tallied.domain_did])
        }
        return {}
      })
      if (outcome.closed !== undefined) throw new DomainProposalClosedError(id, outcome.closed)
      if (outcome.duplicate === true) throw new DomainAlreadyVotedError(id)
      return await read(id)
    }
  }
}

export type GovernanceService = ReturnType<typeof createGovernanceService>
