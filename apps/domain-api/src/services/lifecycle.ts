import type { Kysely, Transaction } from 'kysely'
import { inTransaction } from '@impact/persistence'
import { dueDomainDids, lockDomain, updateDomain } from '../db/domain.repository.ts'
import { insertEvents } from '../db/event.repository.ts'
import { lockProposal, updateProposal } from '../db/proposal.repository.ts'
import { recordVersions } from '../db/version.repository.ts'
import type { DB, DomainRow, NewEvent, ProposalRow } from '../db/types.ts'
import type { Caller } from './api-keys.ts'
import { closeProposal } from './outcomes.ts'
import { describeTally, passes } from './tally.ts'

/**
 * The time-driven part of the lifecycle: a voting period that ends settles its proposal (passed when the
 * votes then pass, else rejected), and a passed validUntil expires the domain. Nothing needs a cron for this to be
 * right: every read and write of a domain settles what is due first (under the domain's row
 * lock), and a periodic sweep records the rest so listings and history catch up too.
 */

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

/** Locks a domain and its latest proposal (always in this order) and applies what is due at `now`. */
export async function lockAndSettle (trx: Transaction<DB>, did: string, now: Date): Promise<LockedDomain | undefined> {
  const domain = await lockDomain(trx, did)
  if (domain === undefined) return undefined
  const proposal = domain.latest_proposal_id === null ? undefined : await lockProposal(trx, domain.latest_proposal_id)
  return await settleLocked(trx, { domain, proposal }, now)
}

async function settleLocked (trx: Transaction<DB>, locked: LockedDomain, now: Date): Promise<LockedDomain> {
  let { domain, proposal } = locked
  const before = domain
  const ended = proposal?.status === 'open' && proposal.deadline <= now ? proposal.deadline : undefined
  const expiryOf = (d: DomainRow) => !FINAL.has(d.status) && d.valid_until !== null && d.valid_until <= now
    ? d.valid_until
    : undefined

  // Applied in the order they happened, each stamped with its own time.
  const expiry = expiryOf(domain)
  let closedAt: Date | undefined
  if (proposal !== undefined && ended !== undefined && (expiry === undefined || ended <= expiry)) {
    closedAt = ended
    const passed = passes(proposal)
    ;({ domain, proposal } = await closeProposal(trx, domain, proposal, {
      outcome: passed ? 'passed' : 'rejected',
      at: ended,
      reason: passed
        ? `passed at the end of the voting period (${describeTally(proposal)})`
        : `voting period ended without passing (${describeTally(proposal)})`
    }))
  }
  // A passed validity proposal may have moved validUntil: expiry is judged on the domain as it now is.
  const expiresAt = expiryOf(domain)
  if (expiresAt !== undefined) {
    // A validity shortened into the past takes effect when its proposal passed, not before.
    const at = closedAt !== undefined && expiresAt < closedAt ? closedAt : expiresAt
    const cancelled = proposal?.status === 'open' ? proposal.id : null
    if (cancelled !== null) {
      proposal = await updateProposal(trx, cancelled, {
        status: 'cancelled',
        closed_at: at,
        outcome_reason: 'the domain expired during the voting period'
      })
    }
    await insertEvents(trx, [{
      domain_did: domain.did,
      event: 'expired',
      from_status: domain.status,
      to_status: 'expired',
      actor_kind: 'system',
      proposal_id: cancelled,
      reason: `validUntil ${expiresAt.toISOString()} passed` +
        (cancelled !== null ? '; the open proposal was cancelled' : ''),
      at
    }])
    domain = await updateDomain(trx, domain.did, { status: 'expired', updated_at: at })
  }
  if (domain !== before) await recordVersions(trx, [domain.did])
  return { domain, proposal }
}

/** Settles one domain in its own transaction. */
export async function settleDomain (db: Kysely<DB>, did: string, now: Date): Promise<void> {
  await inTransaction(db, async (trx) => { await lockAndSettle(trx, did, now) })
}

/**
 * Settles every domain with a transition due at `now`, in batches; returns how many it looked
 * at. Replicas may sweep at once: each domain is re-checked under its lock, so a transition is
 * recorded once.
 */
export async function settleDue (
  db: Kysely<DB>,
  now: Date,
  options: { batch?: number, maxBatches?: number } = {}
): Promise<number> {
  const batch = options.batch ?? 100
  let settled = 0
  for (let round = 0; round < (options.maxBatches ?? 10); round++) {
    const dids = await dueDomainDids(db, now, batch)
    for (const did of dids) await settleDomain(db, did, now)
    settled += dids.length
    if (dids.length < batch) break
  }
  return settled
}
