import type { ApiKey } from '../schemas/api-key.ts'
import type { Role } from '../schemas/role.ts'
import type {
  Domain, DomainDocumentFields, DomainEvent, DomainStatus, Proposal, ProposalStatus, ProposalSummary, Vote,
  VoteChoice
} from '@impact/schemas'
import { documentFieldsOf } from './did-document.ts'
import { passes } from './tally.ts'
import type { DomainWithProposal } from '../db/domain.repository.ts'
import type { NewDomain } from '../db/domain-insert.repository.ts'
import type { EventListRow } from '../db/event.repository.ts'
import type { ApiKeyRow, DomainRow, ProposalRow } from '../db/types.ts'

/** Maps rows to the wire shapes (camelCase, ISO timestamps); nothing else leaves the service. */

const iso = (date: Date | null) => (date === null ? null : date.toISOString())

/**
 * What a client sees as the status. Expiry and the end of a voting period are derived from the
 * clock as well, so an answer is right even before the transition is recorded (reads settle due
 * transitions first; this covers what a bounded settle left for the sweep).
 */
export function effectiveStatus (row: DomainWithProposal, now: Date): DomainStatus {
  if (row.status === 'deactivated') return 'deactivated'
  if (row.valid_until !== null && row.valid_until <= now) return 'expired'
  if (row.status === 'verification_submitted' && proposalEnded(row, now)) {
    return endedPassing(row) ? 'verified' : 'rejected'
  }
  return row.status as DomainStatus
}

const proposalEnded = (row: DomainWithProposal, now: Date) =>
  row.p_status === 'open' && row.p_deadline !== null && row.p_deadline <= now

/** Whether the latest proposal's votes pass (read when its period has ended but is not recorded yet). */
const endedPassing = (row: DomainWithProposal) => passes({
  yes: row.p_yes ?? 0,
  no: row.p_no ?? 0,
  abstain: row.p_abstain ?? 0,
  quorum: row.p_quorum ?? 1,
  threshold: row.p_threshold ?? 1
})

export function toDomain (row: DomainWithProposal, now: Date): Domain {
  const status = effectiveStatus(row, now)
  const started = row.valid_from === null || row.valid_from <= now
  const ended = proposalEnded(row, now)
  // Passed at a deadline no sweep has recorded yet: verified as of the deadline.
  const verifiedAt = row.verified_at ?? (ended && endedPassing(row) ? row.p_deadline : null)
  return {
    did: row.did,
    type: row.type,
    class: row.class,
    protocol: row.class,
    controllers: row.controllers,
    metadata: row.metadata,
    validFrom: iso(row.valid_from),
    validUntil: iso(row.valid_until),
    status,
    verified: verifiedAt !== null,
    usable: status === 'verified' && started,
    verification:
      row.latest_proposal_id !== null && row.p_status !== null && row.p_deadline !== null
        ? {
            proposalId: row.latest_proposal_id,
            status: ended ? (endedPassing(row) ? 'passed' : 'rejected') : row.p_status,
            deadline: row.p_deadline.toISOString()
          }
        : null,
    externalId: row.external_id,
    organisation: row.organisation_did,
    project: row.project_did,
    createdBy: { keyId: row.created_by_key, account: row.created_by_account, service: row.created_by_service },
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    verifiedAt: iso(verifiedAt),
    deactivatedAt: iso(row.deactivated_at),
    ...documentFieldsOf(row.document as DomainDocumentFields)
  }
}

/** The row a new domain will have once inserted (its answer is built before the insert). */
export const draftRow = (d: NewDomain): DomainWithProposal => ({
  did: d.did,
  type: d.type,
  class: d.class,
  controllers: d.controllers,
  metadata: d.metadata,
  valid_from: d.validFrom,
  valid_until: d.validUntil,
  status: 'draft',
  latest_proposal_id: null,
  created_by_key: d.createdByKey,
  created_by_account: d.createdByAccount,
  created_by_service: d.createdByService,
  created_at: d.createdAt,
  updated_at: d.createdAt,
  verified_at: null,
  deactivated_at: null,
  document: d.document ?? {},
  external_id: d.externalId ?? null,
  parent_did: d.parent ?? null,
  organisation_did: d.organisation ?? null,
  project_did: d.project ?? null,
  p_status: null,
  p_deadline: null,
  p_yes: null,
  p_no: null,
  p_abstain: null,
  p_quorum: null,
  p_threshold: null
})

export const withProposal = (row: DomainRow, proposal: ProposalRow | undefined): DomainWithProposal => ({
  ...row,
  p_status: proposal?.status ?? null,
  p_deadline: proposal?.deadline ?? null,
  p_yes: proposal?.yes ?? null,
  p_no: proposal?.no ?? null,
  p_abstain: proposal?.abstain ?? null,
  p_quorum: proposal?.quorum ?? null,
  p_threshold: proposal?.threshold ?? null
})

export interface VoteRow {
  voter_key: string
  voter_account: string
  voter_service: string | null
  vote: string
  rationale: string | null
  cast_at: Date
  superseded_at: Date | null
}

/** A UCAN voter's row holds its account where a key's id would be (one vote per account either way). */
const voterKeyOf = (v: VoteRow) => (v.voter_key === v.voter_account ? null : v.voter_key)

export const toVote = (v: VoteRow): Vote => ({
  keyId: voterKeyOf(v),
  account: v.voter_account,
  service: v.voter_service,
  vote: v.vote as VoteChoice,
  rationale: v.rationale,
  castAt: v.cast_at.toISOString(),
  supersededAt: iso(v.superseded_at)
})

export function toProposalSummary (row: ProposalRow): ProposalSummary {
  return {
    id: row.id,
    domainDid: row.domain_did,
    status: row.status as ProposalStatus,
    evidence: row.evidence,
    evidenceHash: row.evidence_hash,
    note: row.note,
    proposedBy: { keyId: row.proposed_by_key, account: row.proposed_by_account, service: row.proposed_by_service },
    quorum: row.quorum,
    quorumRule: row.quorum_rule,
    threshold: row.threshold,
    electorate: {
      source: row.electorate_source as ProposalSummary['electorate']['source'],
      size: row.electorate_size,
      vetoers: row.electorate_vetoers
    },
    tally: { yes: row.yes, no: row.no, abstain: row.abstain, veto: row.veto, total: row.yes + row.no + row.abstain },
    deadline: row.deadline.toISOString(),
    createdAt: row.created_at.toISOString(),
    closedAt: iso(row.closed_at),
    outcomeReason: row.outcome_reason
  }
}

export function toProposal (
  row: ProposalRow,
  votes: VoteRow[],
  eligible: { voters: string[], vetoers: string[] }
): Proposal {
  return { ...toProposalSummary(row), eligible, votes: votes.map(toVote) }
}

export function toEvent (row: EventListRow): DomainEvent {
  return {
    id: row.id,
    event: row.event,
    fromStatus: row.from_status as DomainStatus | null,
    toStatus: row.to_status as DomainStatus,
    actor: {
      kind: row.actor_kind as DomainEvent['actor']['kind'],
      keyId: row.actor_key,
      account: row.actor_account,
      service: row.actor_service
    },
    proposalId: row.proposal_id,
    reason: row.reason,
    details: row.details,
    at: row.at.toISOString()
  }
}

export function toApiKey (row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    name: row.name,
    roles: row.roles as Role[],
    account: row.account,
    organisation: row.organisation_did,
    prefix: row.prefix,
    createdBy: row.created_by,
    createdAt: row.created_at.toISOString(),
    revokedAt: iso(row.revoked_at)
  }
}
