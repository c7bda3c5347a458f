import type { Kysely, Transaction } from 'kysely'
import { inTransaction } from '@impact/persistence'
import { dueDomainDids, findDomain, lockDomain, updateDomain } from '../db/domain.repository.ts'
import { insertEvents } from '../db/event.repository.ts'
import { findProposal, lockProposal, updateProposal } from '../db/proposal.repository.ts'
import { recordVersions } from '../db/version.repository.ts'
import type { DB, DomainRow, NewEvent, ProposalRow } from '../db/types.ts'
import type { Caller } from './api-keys.ts'
import { expireMember, isCollection, settleCollection, settleDueCollections } from './collections.ts'
import { closeProposal, closingAtDeadline, expiredEvent } from './outcomes.ts'

// No cron needed for correctness: every read and write settles what is due first; the sweep lets listings catch up.

export interface LockedDomain { domain: DomainRow, proposal: ProposalRow | undefined }

const FINAL = new Set(['expired', 'deactivated'])

export function isDue (
  domain: Pick<DomainRow, 'status' | 'valid_until'>,
  proposal: { status: string | null, deadline: Date | null } | undefined,
  now: Date
): boolean {
  const ended = proposal?.status === 'open' && proposal.deadline !== null && proposal.deadline <= now
  const expired = !FINAL.has(domain.status) && domain.valid_until !== null && domain.valid_until <= now
  return ended || expired
}

/** A history entry written by a caller (an API key, or an account proven by UCAN and the service that invoked). */
export const callerEvent = (
  caller: Caller,
  domain: DomainRow,
  entry: Omit<NewEvent, 'domain_did' | 'actor_kind' | 'actor_key' | 'actor_account' | 'actor_service' | 'from_status'>
): NewEvent => ({
  domain_did: domain.did,
  from_status: domain.status,
  actor_kind: caller.via,
  actor_key: caller.keyId,
  actor_account: caller.account,
  actor_service: caller.service,
  ...entry
})

/** Locks domain then proposal; a collection is only read, as its row is locked before its members' elsewhere. */
export async function lockAndSettle (trx: Transaction<DB>, did: string, now: Date): Promise<LockedDomain | undefined> {
  const locked = await lockDomain(trx, did)
  if (locked === undefined) return undefined
  const { domain, latestKind } = locked
  const id = domain.latest_proposal_id
  const proposal = id === null
    ? undefined
    : latestKind === 'collection' ? await findProposal(trx, id) : await lockProposal(trx, id)
  return await settleLocked(trx, { domain, proposal }, now)
}

async function settleLocked (trx: Transaction<DB>, locked: LockedDomain, now: Date): Promise<LockedDomain> {
  let { domain, proposal } = locked
  const before = domain
  const ended = proposal?.status === 'open' && proposal.deadline <= now && !isCollection(proposal)
    ? proposal.deadline
    : undefined
  const expiryOf = (d: DomainRow) => !FINAL.has(d.status) && d.valid_until !== null && d.valid_until <= now
    ? d.valid_until
    : undefined

  // Applied in the order they happened, each stamped with its own time.
  const expiry = expiryOf(domain)
  let closedAt: Date | undefined
  if (proposal !== undefined && ended !== undefined && (expiry === undefined || ended <= expiry)) {
    closedAt = ended
    ;({ domain, proposal } = await closeProposal(trx, domain, proposal, closingAtDeadline(proposal)))
  }
  // A passed validity proposal may have moved validUntil: expiry is judged on the domain as it now is.
  const expiresAt = expiryOf(domain)
  if (expiresAt !== undefined) {
    // A validity shortened into the past takes effect when its proposal passed, not before.
    const at = closedAt !== undefined && expiresAt < closedAt ? closedAt : expiresAt
    const open = proposal?.status === 'open' ? proposal : undefined
    if (open !== undefined && isCollection(open)) {
      domain = await expireMember(trx, open, domain, at)
    } else {
      if (open !== undefined) {
        proposal = await updateProposal(trx, open.id, {
          status: 'cancelled',
          closed_at: at,
          outcome_reason: 'the domain expired during the voting period'
        })
      }
      await insertEvents(trx, [expiredEvent(domain, at, open?.id ?? null,
        open !== undefined ? '; the open proposal was cancelled' : '')])
      domain = await updateDomain(trx, domain.did, { status: 'expired', updated_at: at })
    }
  }
  if (domain !== before) await recordVersions(trx, [domain.did])
  return { domain, proposal }
}

/** Closes the collection `did` is a member of if its voting period has ended (before the domain is locked). */
export async function settleCollectionOf (db: Kysely<DB>, did: string, now: Date): Promise<void> {
  const row = await findDomain(db, did)
  if (row?.p_kind === 'collection' && row.p_status === 'open' && row.p_deadline !== null && row.p_deadline <= now) {
    await settleCollection(db, row.latest_proposal_id!, now)
  }
}

export async function settleDomain (db: Kysely<DB>, did: string, now: Date): Promise<void> {
  await settleCollectionOf(db, did, now)
  await inTransaction(db, async (trx) => { await lockAndSettle(trx, did, now) })
}

/** Replicas may sweep at once: each domain is re-checked under its lock, so a transition is recorded once. */
export async function settleDue (
  db: Kysely<DB>,
  now: Date,
  options: { batch?: number, maxBatches?: number } = {}
): Promise<number> {
  const batch = options.batch ?? 100
  let settled = 0
  for (let round = 0; round < (options.maxBatches ?? 10); round++) {
    const collections = await settleDueCollections(db, now, batch)
    const dids = await dueDomainDids(db, now, batch)
    for (const did of dids) await settleDomain(db, did, now)
    settled += collections + dids.length
    if (dids.length < batch && collections < batch) break
  }
  return settled
}
