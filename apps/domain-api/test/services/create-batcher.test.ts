import { describe, expect, it } from 'vitest'
import type { DomainInsert } from '../../src/db/domain-insert.repository.ts'
import { createInsertBatcher } from '../../src/services/create-batcher.ts'
import { newEntityDid } from '../../src/services/domains.ts'
import { fileDatabase, PROTOCOL } from '../helper.ts'

const file = fileDatabase()

const row = (overrides: Partial<DomainInsert['domain']> = {}, claimKey?: string): DomainInsert => {
  const now = new Date()
  return {
    domain: {
      did: newEntityDid(),
      type: 'project',
      class: PROTOCOL,
      controllers: ['did:ixo:tester'],
      metadata: { name: 'x' },
      validFrom: null,
      validUntil: null,
      createdByKey: 'k1',
      createdByAccount: 'did:ixo:tester',
      createdByService: null,
      createdVia: 'api-key',
      createdAt: now,
      ...overrides
    },
    reason: 'test',
    ...(claimKey !== undefined
      ? { claim: { apiKeyId: 'k1', key: claimKey, fingerprint: 'f', response: { ok: true } } }
      : {})
  }
}

describe('create batching', () => {
  it('writes rows that arrive together in one statement, each with its history entry', async () => {
    const batcher = createInsertBatcher(file.database.db, 60_000)
    const rows = Array.from({ length: 40 }, () => row())
    expect(await Promise.all(rows.map(async (r) => await batcher.insert(r)))).toEqual(Array(40).fill(true))
    const events = await file.database.db
      .selectFrom('domain_events')
      .select('domain_did')
      .where(
        'domain_did',
        'in',
        rows.map((r) => r.domain.did)
      )
      .execute()
    expect(events).toHaveLength(40)
  })

  it('fails only the bad row of a batch', async () => {
    const batcher = createInsertBatcher(file.database.db, 60_000)
    const good = [row(), row()]
    const bad = row({ validFrom: new Date('2031-01-01T00:00:00Z'), validUntil: new Date('2030-01-01T00:00:00Z') })
    const results = await Promise.allSettled([batcher.insert(good[0]!), batcher.insert(bad), batcher.insert(good[1]!)])
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    const stored = await file.database.db
      .selectFrom('domains')
      .select('did')
      .where(
        'did',
        'in',
        [...good, bad].map((r) => r.domain.did)
      )
      .execute()
    expect(stored.map((r) => r.did).sort()).toEqual(good.map((r) => r.domain.did).sort())
  })

  it('lets exactly one row claim an idempotency key, even within one turn', async () => {
    const batcher = createInsertBatcher(file.database.db, 60_000)
    const results = await Promise.all(Array.from({ length: 5 }, async () => await batcher.insert(row({}, 'same-key'))))
    expect(results.filter(Boolean)).toHaveLength(1)
  })
})
