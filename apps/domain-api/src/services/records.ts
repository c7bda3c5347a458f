import type { ApiKey } from '../schemas/api-key.ts'
import type { Role } from '../schemas/role.ts'
import type {
  Domain, DomainDocumentFields, DomainEvent, DomainStatus, Proposal, ProposalKind, ProposalMember, ProposalStatus,
  ProposalSummary, Vote, VoteChoice
} from '@impact/schemas'
import { documentFieldsOf } from './did-document.ts'
import { contentHashOf } from './snapshot.ts'
import { passes } from './tally.ts'
import type { DomainWithProposal } from '../db/domain.repository.ts'
import type { NewDomain } from '../db/domain-insert.repository.ts'
import type { EventListRow } from '../db/event.repository.ts'
import type { ApiKeyRow, DomainRow, ProposalRow } from '../db/types.ts'

/** Maps rows to the wire shapes (camelCase, ISO timestamps); nothing else leaves the service. */

const iso = (date: Date | null) => (date === null ? null : date.toISOString())

interface Projected {
  status: DomainStatus
  validUntil: Date | null
  verifiedAt: Date | null
  verifiedHash: string | null
  proposalStatus: string | null
}

/**
 * What a client sees. Expiry and the end of a voting period are derived from the clock as well, so an answer is
 * right even before the transition is recorded (reads settle due transitions first; this covers what a bounded
 * settle left for the sweep). It follows lifecycle.ts: the proposal's outcome first unless the domain expired
 * before its deadline, then expiry on the validUntil that leaves.
 */
function project (row: DomainWithProposal, now: Date): Projected {
  const seen: Projected = {
    status: row.status as DomainStatus,
    validUntil: row.valid_until,
    verifiedAt: row.verified_at,
    verifiedHash: row.verified_hash,
    proposalStatus: row.p_status
  }
  if (row.status === 'deactivated') return seen
  if (proposalEnded(row, now)) {
    if (row.valid_until !== null && row.valid_until < row.p_deadline!) {
      seen.proposalStatus = 'cancelled'
    } else {
      const passing = endedPassing(row)
      seen.proposalStatus = passing ? 'passed' : 'rejected'
      // A collection verifies each member as a verify proposal does.
      const verifies = row.p_kind === 'verify' || row.p_kind === 'collection'
      const underReview = row.status === (verifies ? 'verification_submitted' : 'verified')
      if (underReview && verifies) {
        seen.status = passing ? 'verified' : 'rejected'
        // Passed at a deadline no sweep has recorded yet: verified as of the deadline, the content unchanged since.
        if (passing) Object.assign(seen, { verifiedAt: row.p_deadline, verifiedHash: contentHashOf(row) })
      } else if (underReview && passing && row.p_kind === 'revoke') {
        Object.assign(seen, { status: 'revoked', verifiedAt: null, verifiedHash: null })
      } else if (underReview && passing && row.p_kind === 'validity') {
        seen.validUntil = row.p_valid_until
        seen.verifiedHash = contentHashOf({ ...row, valid_until: row.p_valid_until })
      }
    }
  }
  if (seen.validUntil !== null && seen.validUntil <= now) seen.status = 'expired'
  return seen
}

export const effectiveStatus = (row: DomainWithProposal, now: Date): DomainStatus => project(row, now).status

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
  const seen = project(row, now)
  const started = row.valid_from === null || row.valid_from <= now
  // A validity change not yet recorded moves the content hash as recording it will.
  const content = seen.validUntil === row.valid_until ? row : { ...row, valid_until: seen.validUntil }
  return {
    did: row.did,
    type: row.type,
    class: row.class,
    protocol: row.class,
    controllers: row.controllers,
    metadata: row.metadata,
    validFrom: iso(row.valid_from),
    validUntil: iso(seen.validUntil),
    status: seen.status,
    verified: seen.verifiedAt !== null,
    usable: seen.status === 'verified' && started,
    verification:
      row.latest_proposal_id !== null && seen.proposalStatus !== null && row.p_deadline !== null
        ? {
            proposalId: row.latest_proposal_id,
            kind: row.p_kind ?? 'verify',
            status: seen.proposalStatus,
            deadline: row.p_deadline.toISOString()
          }
        : null,
    contentHash: contentHashOf(content),
    verifiedHash: seen.verifiedHash,
    externalId: row.external_id,
    organisation: row.organisation_did,
    project: row.project_did,
    createdBy: { keyId: row.created_by_key, account: row.created_by_account, service: row.created_by_service },
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    verifiedAt: iso(seen.verifiedAt),
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
  verified_hash: null,
  p_kind: null,
  p_valid_until: null,
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
  p_kind: proposal?.kind ?? null,
  p_valid_until: proposal?.valid_until ?? null,
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
    kind: row.kind as ProposalKind,
    status: row.status as ProposalStatus,
    validUntil: iso(row.valid_until),
    snapshotHash: row.snapshot_hash,
    memberCount: row.member_count,
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
  eligible: { voters: string[], vetoers: string[] },
  snapshot: { hash: string, content: Record<string, unknown> } | null
): Proposal {
  return { ...toProposalSummary(row), snapshot, eligible, votes: votes.map(toVote) }
}

export const toMember = (row: {
  domain_did: string, hash: string, withdrawn_at: Date | null, withdrawn_reason: string | null
}): ProposalMember => ({
  did: row.domain_did,
  hash: row.hash,
  withdrawnAt: iso(row.withdrawn_at),
  withdrawnReason: row.withdrawn_reason
})

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
