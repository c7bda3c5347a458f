import type { Kysely, Transaction } from 'kysely'
import { inTransaction } from '@impact/persistence'
import { controlsMember, listMembers } from '../db/collection.repository.ts'
import { findDomain } from '../db/domain.repository.ts'
import { insertEvents } from '../db/event.repository.ts'
import { recordVersions } from '../db/version.repository.ts'
import {
  currentBallot,
  electorateRolesOf,
  findProposal,
  findSnapshot,
  insertVote,
  listElectorate,
  listProposalPage,
  listVotes,
  lockProposal,
  supersedeBallot,
  updateProposal,
  type ProposalFilters
} from '../db/proposal.repository.ts'
import type { DB, DomainRow, ProposalRow } from '../db/types.ts'
import {
  DomainAlreadyVotedError,
  DomainNotFoundError,
  DomainNotInElectorateError,
  DomainProposalClosedError,
  DomainProposalNotFoundError,
  DomainVoterConflictError
} from '../errors.ts'
import type {
  CreateProposalBody, CursorPageQuery, ListProposalsQuery, Proposal, VoteBody
} from '@impact/schemas'
import { principalOf, type Caller } from './api-keys.ts'
import type { Clock } from './clock.ts'
import { closeCollection, isCollection, lockCollection, settleCollection } from './collections.ts'
import { callerEvent, isDue, lockAndSettle, settleCollectionOf, settleDomain, settleDue } from './lifecycle.ts'
import { closeProposal, type Closing } from './outcomes.ts'
import { decodeDidCursor, decodeKeyset, toPage } from './pagination.ts'
import { openProposal, type ProposeContext } from './propose.ts'
import { toMember, toProposal, toProposalSummary } from './records.ts'
import { decided, describeTally, parseQuorumRule, remainingOf, tallyOf } from './tally.ts'

export interface VerificationSettings {
  /** Votes needed: a count (`3`) or a share of the electorate (`40%`), resolved when a proposal opens. */
  quorum: string
  /** Fraction of yes among yes+no needed to pass. */
  threshold: number
  periodMs: number
}

export const proposalPosition = (p: { createdAt: string, id: string }) => [p.createdAt, p.id]

interface VoteTarget {
  /** The domain the proposal is on (for a collection, its project): the vote's history entry goes there. */
  domain: DomainRow
  proposal: ProposalRow
  /** Whether the account controls what the proposal reviews. */
  controls: (account: string) => Promise<boolean>
  /** Closes the proposal with an outcome and applies it. */
  close: (closing: Closing) => Promise<void>
}

type VoteOutcome =
  | { closed: string }
  | { conflict: string }
  | { ineligible: string }
  | { duplicate: string }
  | { cast: true }

export function createGovernanceService (
  { db, clock, settings }: { db: Kysely<DB>, clock: Clock, settings: VerificationSettings }
) {
  const context: ProposeContext = { settings, quorumRule: parseQuorumRule(settings.quorum) }

  async function read (id: string): Promise<Proposal> {
    const now = clock()
    let row = await findProposal(db, id)
    // An open proposal closes when its period ends or when its domain expires first.
    const domain = row?.status === 'open' && !isCollection(row) ? await findDomain(db, row.domain_did) : undefined
    if (isCollection(row) && row!.status === 'open' && row!.deadline <= now) {
      await settleCollection(db, id, now)
      row = await findProposal(db, id)
    } else if (
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

  /**
   * Locks what a vote changes: the domain then its proposal, or a collection's row (its members are locked only
   * if the vote closes it). Settles what is due first; who has a stake in what the proposal reviews.
   */
  async function lockForVote (trx: Transaction<DB>, found: ProposalRow, now: Date): Promise<VoteTarget | undefined> {
    if (isCollection(found)) {
      const proposal = await lockCollection(trx, found.id, now)
      const project = await findDomain(trx, found.domain_did)
      if (proposal === undefined || project === undefined) return undefined
      return {
        domain: project,
        proposal,
        controls: async (account) =>
          project.controllers.includes(account) || await controlsMember(trx, found.id, account),
        close: async (closing) => { await closeCollection(trx, proposal, closing) }
      }
    }
    const locked = await lockAndSettle(trx, found.domain_did, now)
    const proposal = locked?.proposal?.id === found.id ? locked.proposal : await lockProposal(trx, found.id)
    if (locked === undefined || proposal === undefined) return undefined
    const { domain } = locked
    return {
      domain,
      proposal,
      controls: async (account) => domain.controllers.includes(account),
      close: async (closing) => {
        const closed = await closeProposal(trx, domain, proposal, closing)
        if (closed.domain !== domain) await recordVersions(trx, [domain.did])
      }
    }
  }

  /** Closes the proposal when the vote just cast decides it: a veto, or an outcome no remaining vote can change. */
  async function closeIfDecided (
    close: VoteTarget['close'],
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
    const decidingVote = {
      keyId: caller.keyId,
      account: caller.account,
      service: caller.service,
      vote: body.vote,
      rationale: body.rationale ?? null
    }
    await close({ outcome, at: now, reason, details: { decidingVote } })
  }

  return {
    get: read,

    /** Opens a proposal of its kind (propose.ts): verify, revoke, validity, or a project's collection. */
    async propose (caller: Caller, did: string, body: CreateProposalBody): Promise<Proposal> {
      const now = clock()
      await settleCollectionOf(db, did, now)
      const { proposal, eligible, snapshot } = await inTransaction(db, async (trx) =>
        await openProposal(trx, context, caller, did, body, now))
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
        const target = await lockForVote(trx, found, now)
        if (target === undefined) throw new DomainProposalNotFoundError(id)
        const { domain, proposal } = target
        // Settling may just have closed it; that is committed along with this answer.
        if (proposal.status !== 'open') return { closed: proposal.status }
        if (caller.account === proposal.proposed_by_account) return { conflict: 'proposed the verification of' }
        if (await target.controls(caller.account)) {
          return { conflict: isCollection(proposal) ? 'controls a member of the collection on' : 'controls' }
        }
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
        await closeIfDecided(target.close, tallied, caller, body, now)
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

    /** The domains a proposal reviews, in DID order, each with the hash of its snapshot (a collection's members). */
    async members (id: string, query: CursorPageQuery) {
      if (await findProposal(db, id) === undefined) throw new DomainProposalNotFoundError(id)
      const rows = await listMembers(db, id, decodeDidCursor(query.cursor, 'member'), query.limit + 1)
      return toPage(rows, query.limit, toMember, (row) => ['member', row.domain_did])
    },

    /**
     * Proposals newest first: of one domain, with a status or kind, and/or those `voter` may vote on (`voted` narrows
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
      if (query.kind !== undefined) filters.kind = query.kind
      if (query.voter !== undefined) filters.voter = query.voter === 'me' ? caller.account : query.voter
      if (query.voted !== undefined) filters.voted = query.voted
      const rows = await listProposalPage(db, filters, decodeKeyset(query.cursor), query.limit + 1)
      return toPage(rows.map(toProposalSummary), query.limit, (p) => p, proposalPosition)
    }
  }
}

export type GovernanceService = ReturnType<typeof createGovernanceService>
