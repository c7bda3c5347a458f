import { randomUUID } from 'node:crypto'
import type { Insertable, Transaction } from 'kysely'
import { MAX_BATCH_ITEMS, type CreateProposalBody, type ProposalKind } from '@impact/schemas'
import { updateDomain } from '../db/domain.repository.ts'
import { insertEvents } from '../db/event.repository.ts'
import { controllersOf, lockCollectable } from '../db/collection.repository.ts'
import {
  accountsHolding, insertElectorate, insertProposal, insertSnapshots, roleHolders
} from '../db/proposal.repository.ts'
import { recordVersions } from '../db/version.repository.ts'
import type { DB, DomainRow, ProposalRow, VerificationProposalsTable } from '../db/types.ts'
import {
  DomainCouncilInvalidError, DomainElectorateTooSmallError, DomainNotFoundError, DomainNotVerifiedError,
  DomainStateConflictError, invalid
} from '../errors.ts'
import type { Caller } from './api-keys.ts'
import type { VerificationSettings } from './governance.ts'
import { callerEvent, lockAndSettle } from './lifecycle.ts'
import { KIND_EVENTS, statusUnderReview } from './outcomes.ts'
import { hashContent, hashMembers, reviewedContent, type ReviewedContent } from './snapshot.ts'
import { resolveQuorum, type QuorumRule } from './tally.ts'
import { checkValidity } from './validation.ts'

/** Opening a proposal: what the domain's state allows, who votes, and what is fixed when it opens. */

export interface ProposeContext { settings: VerificationSettings, quorumRule: QuorumRule }

export interface Electorate { source: 'voter-role' | 'council', voters: string[], vetoers: string[] }

export interface Opened {
  proposal: ProposalRow
  eligible: { voters: string[], vetoers: string[] }
  snapshot: { hash: string, content: ReviewedContent } | null
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

/**
 * The electorate a proposal gets now: the voter role's holders, or the council, never `excluded` (the controllers
 * of what it reviews, and the proposer); refuses a council that breaks the rules or one that can never reach the
 * quorum.
 */
export async function fixElectorate (
  trx: Transaction<DB>,
  ctx: ProposeContext,
  excluded: string[],
  council: string[] | undefined
): Promise<{ electorate: Electorate, quorum: number }> {
  const vetoers = await roleHolders(trx, 'vetoer', excluded)
  let electorate: Electorate
  if (council === undefined) {
    electorate = { source: 'voter-role', voters: await roleHolders(trx, 'voter', excluded), vetoers }
  } else {
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
    electorate = { source: 'council', voters: [...council].sort(), vetoers }
  }
  const size = electorate.voters.length
  const quorum = resolveQuorum(ctx.quorumRule, size)
  if (size === 0 || quorum > size) {
    const who = electorate.source === 'council'
      ? `a council of ${size}`
      : `${size} holders of the voter role besides the domain's controllers and the proposer`
    throw new DomainElectorateTooSmallError(who, quorum)
  }
  return { electorate, quorum }
}

/** A new open proposal's row: the caller, the rules and the deadline as they are now. */
export const proposalRow = (
  ctx: ProposeContext,
  caller: Caller,
  body: CreateProposalBody,
  fixed: { electorate: Electorate, quorum: number },
  now: Date,
  fields: Pick<Insertable<VerificationProposalsTable>, 'domain_did' | 'kind' | 'snapshot_hash'> &
    Partial<Insertable<VerificationProposalsTable>>
): Insertable<VerificationProposalsTable> => ({
  id: randomUUID(),
  status: 'open',
  evidence: body.evidence,
  evidence_hash: body.evidenceHash ?? null,
  note: body.note ?? null,
  proposed_by_key: caller.keyId,
  proposed_by_account: caller.account,
  proposed_by_service: caller.service,
  quorum: fixed.quorum,
  quorum_rule: ctx.settings.quorum,
  threshold: ctx.settings.threshold,
  electorate_source: fixed.electorate.source,
  electorate_size: fixed.electorate.voters.length,
  electorate_vetoers: fixed.electorate.vetoers.length,
  deadline: new Date(now.getTime() + ctx.settings.periodMs),
  created_at: now,
  ...fields
})

/** What an opening history entry records of the proposal. */
export const openingDetails = (proposal: ProposalRow, body: CreateProposalBody) => ({
  kind: proposal.kind,
  evidence: body.evidence,
  evidenceHash: body.evidenceHash ?? null,
  deadline: proposal.deadline.toISOString(),
  quorum: proposal.quorum,
  quorumRule: proposal.quorum_rule,
  threshold: proposal.threshold,
  electorate: {
    source: proposal.electorate_source, size: proposal.electorate_size, vetoers: proposal.electorate_vetoers
  }
})

/**
 * Opens a proposal of its kind on `did` (for a collection, on the project whose domains it verifies). Fixed now:
 * the snapshot of the reviewed content, the electorate, the vetoers, the quorum, the threshold and the deadline.
 */
export async function openProposal (
  trx: Transaction<DB>,
  ctx: ProposeContext,
  caller: Caller,
  did: string,
  body: CreateProposalBody,
  now: Date
): Promise<Opened> {
  const kind = body.kind ?? 'verify'
  const validUntil = requestedValidity(kind, body)
  const locked = await lockAndSettle(trx, did, now)
  if (locked === undefined) throw new DomainNotFoundError(did)
  const { domain } = locked
  if (kind === 'collection') return await openCollection(trx, ctx, caller, domain, body, now)
  checkProposable(domain, locked.proposal, kind, validUntil, now)
  const fixed = await fixElectorate(trx, ctx, [...new Set([...domain.controllers, caller.account])], body.council)
  const content = reviewedContent(domain)
  const hash = hashContent(content)
  const created = await insertProposal(trx, proposalRow(ctx, caller, body, fixed, now, {
    domain_did: did, kind, snapshot_hash: hash, valid_until: validUntil, prior_status: domain.status
  }))
  await insertSnapshots(trx, [{ proposal_id: created.id, domain_did: did, hash, content: JSON.stringify(content) }])
  await insertElectorate(trx, created.id, fixed.electorate)
  const status = statusUnderReview(kind)
  await updateDomain(trx, did, { status, latest_proposal_id: created.id, updated_at: now })
  await insertEvents(trx, [callerEvent(caller, domain, {
    event: KIND_EVENTS[kind].proposed,
    to_status: status,
    proposal_id: created.id,
    reason: body.note ?? `${kind} proposed`,
    details: JSON.stringify({
      ...openingDetails(created, body),
      snapshotHash: hash,
      ...(validUntil !== null
        ? { validUntil: { before: domain.valid_until?.toISOString() ?? null, after: validUntil.toISOString() } }
        : {})
    }),
    at: now
  })])
  await recordVersions(trx, [did])
  const { voters, vetoers } = fixed.electorate
  return { proposal: created, eligible: { voters, vetoers }, snapshot: { hash, content } }
}

/** A collection covers at most a batch's worth of domains; a larger project is verified a batch at a time. */
export const MAX_COLLECTION = MAX_BATCH_ITEMS
const SNAPSHOT_CHUNK = 500

/**
 * Opens a collection on the project `anchor` (locked by the caller): up to MAX_COLLECTION of its domains that may
 * be verified now, oldest first, each with its own snapshot. The controllers of every member and of the project
 * are left out of the electorate.
 */
async function openCollection (
  trx: Transaction<DB>,
  ctx: ProposeContext,
  caller: Caller,
  anchor: DomainRow,
  body: CreateProposalBody,
  now: Date
): Promise<Opened> {
  const members = await lockCollectable(trx, anchor.did, now, MAX_COLLECTION)
  if (members.length === 0) {
    throw new DomainStateConflictError(`Domain ${anchor.did} has no domains to verify: none of its project's ` +
      'domains is draft, rejected, changed or revoked and within its validity')
  }
  const dids = members.map((m) => m.did)
  const stake = await controllersOf(trx, [anchor.did, ...dids])
  const fixed = await fixElectorate(trx, ctx, [...new Set([...stake, caller.account])], body.council)
  const snapshots = members.map((member) => {
    const content = reviewedContent(member)
    return { member, content, hash: hashContent(content) }
  })
  const created = await insertProposal(trx, proposalRow(ctx, caller, body, fixed, now, {
    domain_did: anchor.did,
    kind: 'collection',
    snapshot_hash: hashMembers(snapshots.map(({ member, hash }) => ({ did: member.did, hash }))),
    member_count: members.length
  }))
  const rows = snapshots.map(({ member, content, hash }) => ({
    proposal_id: created.id,
    domain_did: member.did,
    hash,
    content: JSON.stringify(content),
    prior_status: member.status,
    prior_proposal_id: member.latest_proposal_id
  }))
  for (let i = 0; i < rows.length; i += SNAPSHOT_CHUNK) await insertSnapshots(trx, rows.slice(i, i + SNAPSHOT_CHUNK))
  await insertElectorate(trx, created.id, fixed.electorate)
  await trx.updateTable('domains')
    .set({ status: 'verification_submitted', latest_proposal_id: created.id, updated_at: now })
    .where('did', 'in', dids).execute()
  const details = openingDetails(created, body)
  const events = snapshots.map(({ member, hash }) => callerEvent(caller, member, {
    event: KIND_EVENTS.collection.proposed,
    to_status: 'verification_submitted',
    proposal_id: created.id,
    reason: body.note ?? `verification proposed with project ${anchor.did}`,
    details: JSON.stringify({ ...details, snapshotHash: hash, collection: { project: anchor.did, size: dids.length } }),
    at: now
  }))
  for (let i = 0; i < events.length; i += SNAPSHOT_CHUNK) await insertEvents(trx, events.slice(i, i + SNAPSHOT_CHUNK))
  await recordVersions(trx, dids)
  const { voters, vetoers } = fixed.electorate
  return { proposal: created, eligible: { voters, vetoers }, snapshot: null }
}
