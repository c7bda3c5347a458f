import { randomUUID } from 'node:crypto'
import type { Kysely, Transaction } from 'kysely'
import { inTransaction } from '@impact/persistence'
import { findDomain, updateDomain } from '../db/domain.repository.ts'
import { insertEvents } from '../db/event.repository.ts'
import { recordVersions } from '../db/version.repository.ts'
import {
  accountsHolding,
  currentBallot,
  electorateRolesOf,
  findProposal,
  findSnapshot,
  insertElectorate,
  insertProposal,
  insertSnapshots,
  insertVote,
  listElectorate,
  listProposalPage,
  listVotes,
  lockProposal,
  roleHolders,
  supersedeBallot,
  updateProposal,
  type ProposalFilters
} from '../db/proposal.repository.ts'
import type { DB, DomainRow, ProposalRow } from '../db/types.ts'
import {
  DomainAlreadyVotedError,
  DomainCouncilInvalidError,
  DomainElectorateTooSmallError,
  DomainNotFoundError,
  DomainNotInElectorateError,
  DomainNotVerifiedError,
  DomainProposalClosedError,
  DomainProposalNotFoundError,
  DomainStateConflictError,
  DomainVoterConflictError,
  invalid
} from '../errors.ts'
import type { CreateProposalBody, ListProposalsQuery, Proposal, ProposalKind, VoteBody } from '@impact/schemas'
import { principalOf, type Caller } from './api-keys.ts'
import type { Clock } from './clock.ts'
import { callerEvent, isDue, lockAndSettle, settleDomain, settleDue } from './lifecycle.ts'
import { closeProposal, KIND_EVENTS, statusUnderReview } from './outcomes.ts'
import { decodeKeyset, toPage } from './pagination.ts'
import { toProposal, toProposalSummary } from './records.ts'
import { hashContent, reviewedContent } from './snapshot.ts'
import { decided, describeTally, parseQuorumRule, remainingOf, resolveQuorum, tallyOf } from './tally.ts'
import { checkValidity } from './validation.ts'

export interface VerificationSettings {
  /** Votes needed: a count (`3`) or a share of the electorate (`40%`), resolved when a proposal opens. */
  quorum: string
  /** Fraction of yes among yes+no needed to pass. */
  threshold: number
  periodMs: number
}

/** Why a domain cannot be proposed for verification (draft, rejected, changed and revoked ones can). */
const REFUSALS: Record<string, string> = {
  deactivated: 'is deactivated',
  expired: 'has expired (renew validUntil first)',
  verified: 'is already verified',
  verification_submitted: 'already has an open verification proposal'
}

/** A validity proposal names its new validUntil; no other kind takes one. */
function requestedValidity (kind: ProposalKind, body: CreateProposalBody): Date | null {
  if (kind !== 'validity') {
    if (body.validUntil !== undefined) {
      throw invalid('validUntil belongs to validity proposals', [
        { field: '/validUntil', message: 'only with kind validity' }
      ])
    }
    return null
  }
  if (body.validUntil === undefined) {
    throw invalid('A validity proposal names the new validUntil', [{ field: '/validUntil', message: 'is required' }])
  }
  return new Date(body.validUntil)
}

/** Refuses a kind the domain's state does not allow (409), or a validUntil its validity rules refuse (400). */
function checkProposable (
  domain: DomainRow,
  latest: ProposalRow | undefined,
  kind: ProposalKind,
  validUntil: Date | null,
  now: Date
): void {
  if (kind === 'verify') {
    const refusal = REFUSALS[domain.status]
    if (refusal !== undefined) throw new DomainStateConflictError(`Domain ${domain.did} ${refusal}`)
    return
  }
  if (domain.status !== 'verified') throw new DomainNotVerifiedError(domain.did, domain.status, kind)
  if (latest?.status === 'open') {
    throw new DomainStateConflictError(`Domain ${domain.did} already has an open ${latest.kind} proposal`)
  }
  if (validUntil === null) return
  checkValidity(domain.valid_from, validUntil, now, true)
  if (validUntil.getTime() === domain.valid_until?.getTime()) {
    throw invalid('The domain already has this validUntil', [{ field: '/validUntil', message: 'must change it' }])
  }
}

const proposalPosition = (p: { createdAt: string, id: string }) => [p.createdAt, p.id]

type VoteOutcome =
  | { closed: string }
  | { conflict: string }
  | { ineligible: string }
  | { duplicate: string }
  | { cast: true }

export function createGovernanceService (
  { db, clock, settings }: { db: Kysely<DB>, clock: Clock, settings: VerificationSettings }
) {
  const quorumRule = parseQuorumRule(settings.quorum)

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
    const [votes, eligible, snapshot] = await Promise.all([
      listVotes(db, id), listElectorate(db, id), findSnapshot(db, id, row.domain_did)
    ])
    return toProposal(row, votes, eligible, snapshot ?? null)
  }

  /** The electorate a proposal on `domain` by `caller` gets now; refuses a council that breaks the rules. */
  async function electorateFor (trx: Transaction<DB>, domain: DomainRow, caller: Caller, council?: string[]) {
    const excluded = [...new Set([...domain.controllers, caller.account])]
    const vetoers = await roleHolders(trx, 'vetoer', excluded)
    if (council === undefined) {
      return { source: 'voter-role', voters: await roleHolders(trx, 'voter', excluded), vetoers }
    }
    const conflicted = council.filter((account) => excluded.includes(account))
    if (conflicted.length > 0) {
      throw new DomainCouncilInvalidError(
        `Council members ${conflicted.join(', ')} control the domain or propose it, and cannot vote on it`)
    }
    const holding = new Set(await accountsHolding(trx, 'voter', council))
    const lacking = council.filter((account) => !holding.has(account))
    if (lacking.length > 0) {
      throw new DomainCouncilInvalidError(`Council members ${lacking.join(', ')} do not hold the voter role`)
    }
    return { source: 'council', voters: [...council].sort(), vetoers }
  }

  /** Closes the proposal when the vote just cast decides it: a veto, or an outcome no remaining vote can change. */
  async function closeIfDecided (
    trx: Transaction<DB>,
    domain: DomainRow,
    proposal: ProposalRow,
    caller: Caller,
    body: VoteBody,
    now: Date
  ): Promise<void> {
    const vetoed = body.vote === 'veto'
    const outcome = vetoed ? 'vetoed' : decided(proposal)
    if (outcome === undefined) return
    const remaining = remainingOf(proposal)
    const reason = outcome === 'vetoed'
      ? `vetoed by ${caller.account}${body.rationale !== undefined ? `: ${body.rationale}` : ''}`
      : outcome === 'passed'
        ? `passed (${describeTally(proposal)}; the ${remaining} who have not voted cannot change it)`
        : `rejected: cannot pass whatever the ${remaining} who have not voted choose (${describeTally(proposal)})`
    const closed = await closeProposal(trx, domain, proposal, {
      outcome,
      at: now,
      reason,
      details: {
        decidingVote: {
          keyId: caller.keyId,
          account: caller.account,
          service: caller.service,
          vote: body.vote,
          rationale: body.rationale ?? null
        }
      }
    })
    if (closed.domain !== domain) await recordVersions(trx, [domain.did])
  }

  return {
    get: read,

    /**
     * Opens a proposal of its kind: verify a draft, rejected, changed or revoked domain; revoke the verification of
     * a verified one, or move its validUntil. Fixed now: the snapshot of the reviewed content (hash and content),
     * the electorate (the voter role's holders now, or the council), the vetoers, the quorum, the threshold and
     * the deadline.
     */
    async propose (caller: Caller, did: string, body: CreateProposalBody): Promise<Proposal> {
      const now = clock()
      const kind = body.kind ?? 'verify'
      const validUntil = requestedValidity(kind, body)
      const { proposal, eligible, snapshot } = await inTransaction(db, async (trx) => {
        const locked = await lockAndSettle(trx, did, now)
        if (locked === undefined) throw new DomainNotFoundError(did)
        const { domain } = locked
        checkProposable(domain, locked.proposal, kind, validUntil, now)
        const electorate = await electorateFor(trx, domain, caller, body.council)
        const size = electorate.voters.length
        const quorum = resolveQuorum(quorumRule, size)
        if (size === 0 || quorum > size) {
          const who = electorate.source === 'council'
            ? `a council of ${size}`
            : `${size} holders of the voter role besides the domain's controllers and the proposer`
          throw new DomainElectorateTooSmallError(who, quorum)
        }
        const content = reviewedContent(domain)
        const hash = hashContent(content)
        const created = await insertProposal(trx, {
          id: randomUUID(),
          domain_did: did,
          kind,
          status: 'open',
          valid_until: validUntil,
          snapshot_hash: hash,
          prior_status: domain.status,
          evidence: body.evidence,
          evidence_hash: body.evidenceHash ?? null,
          note: body.note ?? null,
          proposed_by_key: caller.keyId,
          proposed_by_account: caller.account,
          proposed_by_service: caller.service,
          quorum,
          quorum_rule: settings.quorum,
          threshold: settings.threshold,
          electorate_source: electorate.source,
          electorate_size: size,
          electorate_vetoers: electorate.vetoers.length,
          deadline: new Date(now.getTime() + settings.periodMs),
          created_at: now
        })
        await insertSnapshots(trx, [
          { proposal_id: created.id, domain_did: did, hash, content: JSON.stringify(content) }
        ])
        await insertElectorate(trx, created.id, electorate)
        const status = statusUnderReview(kind)
        await updateDomain(trx, did, { status, latest_proposal_id: created.id, updated_at: now })
        await insertEvents(trx, [callerEvent(caller, domain, {
          event: KIND_EVENTS[kind].proposed,
          to_status: status,
          proposal_id: created.id,
          reason: body.note ?? `${kind} proposed`,
          details: JSON.stringify({
            kind,
            snapshotHash: hash,
            ...(validUntil !== null
              ? { validUntil: { before: domain.valid_until?.toISOString() ?? null, after: validUntil.toISOString() } }
              : {}),
            evidence: body.evidence,
            evidenceHash: body.evidenceHash ?? null,
            deadline: created.deadline.toISOString(),
            quorum: created.quorum,
            quorumRule: created.quorum_rule,
            threshold: created.threshold,
            electorate: { source: electorate.source, size, vetoers: electorate.vetoers.length }
          }),
          at: now
        })])
        await recordVersions(trx, [did])
        const eligible = { voters: electorate.voters, vetoers: electorate.vetoers }
        return { proposal: created, eligible, snapshot: { hash, content } }
      })
      return toProposal(proposal, [], eligible, snapshot)
    },

    /**
     * Casts or changes the caller's account's vote. The domain row and then the proposal row are locked, so
     * concurrent votes are counted one after another and the tally is exact; a unique index keeps one ballot
     * per account current, whichever of its keys (or UCAN) votes.
     */
    async vote (caller: Caller, id: string, body: VoteBody): Promise<Proposal> {
      const now = clock()
      const found = await findProposal(db, id)
      if (found === undefined) throw new DomainProposalNotFoundError(id)
      const outcome = await inTransaction(db, async (trx): Promise<VoteOutcome> => {
        const locked = await lockAndSettle(trx, found.domain_did, now)
        const proposal = locked?.proposal?.id === id ? locked.proposal : await lockProposal(trx, id)
        if (locked === undefined || proposal === undefined) throw new DomainProposalNotFoundError(id)
        // Settling may just have closed it; that is committed along with this answer.
        if (proposal.status !== 'open') return { closed: proposal.status }
        const { domain } = locked
        if (caller.account === proposal.proposed_by_account) return { conflict: 'proposed the verification of' }
        if (domain.controllers.includes(caller.account)) return { conflict: 'controls' }
        const roles = await electorateRolesOf(trx, id, caller.account)
        if (body.vote === 'veto' && !roles.includes('vetoer')) {
          return { ineligible: 'it did not hold the vetoer role when the proposal opened' }
        }
        if (body.vote !== 'veto' && !roles.includes('voter')) {
          return {
            ineligible: proposal.electorate_source === 'council'
              ? 'it is not on the council the proposal names'
              : 'it did not hold the voter role when the proposal opened'
          }
        }
        const previous = await currentBallot(trx, id, caller.account)
        if (previous?.vote === body.vote) return { duplicate: body.vote }
        if (previous !== undefined) await supersedeBallot(trx, previous.id, now)
        await insertVote(trx, {
          proposal_id: id,
          voter_key: principalOf(caller),
          voter_account: caller.account,
          voter_service: caller.service,
          vote: body.vote,
          rationale: body.rationale ?? null,
          cast_at: now
        })
        const counts = { [body.vote]: proposal[body.vote] + 1 }
        if (previous !== undefined) {
          const was = previous.vote as VoteBody['vote']
          counts[was] = proposal[was] - 1
        }
        const tallied = await updateProposal(trx, id, counts)
        const changed = previous !== undefined
        await insertEvents(trx, [callerEvent(caller, domain, {
          event: changed ? 'vote_changed' : 'vote_cast',
          to_status: domain.status,
          proposal_id: id,
          reason: changed ? `changed vote from ${previous.vote} to ${body.vote}` : `voted ${body.vote}`,
          details: JSON.stringify({
            vote: body.vote,
            ...(changed ? { previous: previous.vote } : {}),
            rationale: body.rationale ?? null,
            tally: tallyOf(tallied)
          }),
          at: now
        })])
        await closeIfDecided(trx, domain, tallied, caller, body, now)
        return { cast: true }
      })
      if ('closed' in outcome) throw new DomainProposalClosedError(id, outcome.closed)
      if ('conflict' in outcome) throw new DomainVoterConflictError(caller.account, outcome.conflict, found.domain_did)
      if ('ineligible' in outcome) {
        const act = body.vote === 'veto' ? 'veto' : 'vote on'
        throw new DomainNotInElectorateError(`Account ${caller.account} may not ${act} proposal ${id}: ` +
          outcome.ineligible)
      }
      if ('duplicate' in outcome) throw new DomainAlreadyVotedError(outcome.duplicate, id)
      return await read(id)
    },

    /**
     * Proposals newest first: of one domain, with a status, and/or those `voter` may vote on (`voted` narrows
     * to those it has or has not voted on). Due closings are settled first, as domain listings do.
     */
    async list (query: ListProposalsQuery & { domainDid?: string }, caller: Caller) {
      const now = clock()
      if (query.domainDid !== undefined && await findDomain(db, query.domainDid) === undefined) {
        throw new DomainNotFoundError(query.domainDid)
      }
      await settleDue(db, now, { maxBatches: 1 })
      const filters: ProposalFilters = {}
      if (query.domainDid !== undefined) filters.domainDid = query.domainDid
      if (query.status !== undefined) filters.status = query.status
      if (query.voter !== undefined) filters.voter = query.voter === 'me' ? caller.account : query.voter
      if (query.voted !== undefined) filters.voted = query.voted
      const rows = await listProposalPage(db, filters, decodeKeyset(query.cursor), query.limit + 1)
      return toPage(rows.map(toProposalSummary), query.limit, (p) => p, proposalPosition)
    }
  }
}

export type GovernanceService = ReturnType<typeof createGovernanceService>
