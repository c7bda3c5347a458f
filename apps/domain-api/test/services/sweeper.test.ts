import { describe, expect, it } from 'vitest'
import type { FastifyBaseLogger } from 'fastify'
import { testClock } from '@impact/service-kit/testing'
import type { Caller } from '../../src/services/api-keys.ts'
import { createDomainService } from '../../src/services/domains.ts'
import { createGovernanceService } from '../../src/services/governance.ts'
import { startSweeper } from '../../src/services/sweeper.ts'
import { anyUcanRevoked, insertUcanRevocation } from '../../src/db/ucan-revocation.repository.ts'
import { fileDatabase, PROTOCOL } from '../helper.ts'

const caller: Caller = {
  via: 'api-key',
  keyId: 'k1',
  name: 'test',
  roles: ['registrar', 'compliance'],
  account: 'did:ixo:tester',
  service: null,
  organisation: null
}
const silentLog = { info () {}, warn () {} } as unknown as FastifyBaseLogger
const file = fileDatabase()

const voter = (n: number): Caller => ({ ...caller, keyId: `v${n}`, roles: ['voter'], account: `did:ixo:voter${n}` })

describe('background sweep', () => {
  it('records ended voting periods and expiries without any read, and forgets old idempotency keys', async () => {
    const clock = testClock()
    const { db } = file.database
    await db.insertInto('account_roles').values([1, 2, 3].map((n) => ({
      account: voter(n).account, role: 'voter', granted_by: 'test', granted_at: clock.date()
    }))).execute()
    const domains = createDomainService({ db, clock: clock.date, idempotencyTtlMs: 60_000 })
    const governance = createGovernanceService({
      db,
      clock: clock.date,
      settings: { quorum: '2', threshold: 0.6, periodMs: 1000 }
    })
    const reviewed = await domains.create(caller, { type: 'Project', class: PROTOCOL })
    const proposal = await governance.propose(caller, reviewed.domain.did, { evidence: 'https://evidence.example/a' })
    // Quorum reached and yes ahead, but the third voter could still tip it: settled at the deadline.
    const passing = await domains.create(caller, { type: 'Project', class: PROTOCOL })
    const passed = await governance.propose(caller, passing.domain.did, { evidence: 'https://evidence.example/b' })
    await governance.vote(voter(1), passed.id, { vote: 'yes' })
    expect(await governance.vote(voter(2), passed.id, { vote: 'abstain' })).toMatchObject({ status: 'open' })
    const expiring = await domains.create(
      caller,
      { type: 'Project', class: PROTOCOL, validUntil: clock.at(500) },
      'idem-1'
    )
    clock.advance(61_000)

    const sweeper = startSweeper({ db, clock: clock.date, log: silentLog, intervalMs: 0, idempotencyTtlMs: 60_000 })
    await sweeper.run()
    await sweeper.stop()

    const statuses = await db
      .selectFrom('domains')
      .select(['did', 'status'])
      .where('did', 'in', [reviewed.domain.did, passing.domain.did, expiring.domain.did])
      .execute()
    expect(Object.fromEntries(statuses.map((r) => [r.did, r.status]))).toEqual({
      [reviewed.domain.did]: 'rejected',
      [passing.domain.did]: 'verified',
      [expiring.domain.did]: 'expired'
    })
    const stored = await db
      .selectFrom('verification_proposals')
      .select(['id', 'status', 'closed_at'])
      .where('id', 'in', [proposal.id, passed.id])
      .execute()
    expect(Object.fromEntries(stored.map((r) => [r.id, [r.status, r.closed_at?.toISOString()]]))).toEqual({
      [proposal.id]: ['rejected', proposal.deadline],
      [passed.id]: ['passed', passed.deadline]
    })
    const verdict = await db.selectFrom('domain_events').select(['event', 'actor_kind', 'at'])
      .where('domain_did', '=', passing.domain.did).where('event', '=', 'verified').execute()
    expect(verdict).toEqual([{ event: 'verified', actor_kind: 'governance', at: new Date(passed.deadline) }])
    expect(await db.selectFrom('idempotency_keys').selectAll().execute()).toHaveLength(0)
    const events = await db
      .selectFrom('domain_events')
      .select('event')
      .where('domain_did', '=', expiring.domain.did)
      .execute()
    expect(events.map((e) => e.event)).toEqual(['created', 'expired'])
  })

  it('forgets revocations of UCANs that expired a while ago, and keeps the others', async () => {
    const clock = testClock()
    const { db } = file.database
    const at = (ms: number) => new Date(Date.now() + ms)
    const revoked = { revokedBy: 'did:key:z6Mkuser', revokedAt: at(0) }
    await insertUcanRevocation(db, { ...revoked, cid: 'bafy-lapsed', expiresAt: at(-3_600_000) })
    await insertUcanRevocation(db, { ...revoked, cid: 'bafy-live', expiresAt: at(3_600_000) })

    const sweeper = startSweeper({ db, clock: clock.date, log: silentLog, intervalMs: 0, idempotencyTtlMs: 60_000 })
    await sweeper.run()
    await sweeper.stop()

    expect(await anyUcanRevoked(db, ['bafy-lapsed'])).toBe(false)
    expect(await anyUcanRevoked(db, ['bafy-lapsed', 'bafy-live'])).toBe(true)
  })
})
