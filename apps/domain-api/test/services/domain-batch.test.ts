import { sql, type KyselyPlugin, type RootOperationNode } from 'kysely'
import { describe, expect, it } from 'vitest'
import { testClock } from '@impact/service-kit/testing'
import type { Caller } from '../../src/services/api-keys.ts'
import { BATCH_CHUNK, createBatchService } from '../../src/services/domain-batch.ts'
import { fileDatabase, PROTOCOL } from '../helper.ts'

const caller: Caller = {
  via: 'api-key',
  keyId: 'k-batch',
  name: 'field office',
  roles: ['registrar'],
  account: 'did:ixo:field-office',
  service: null,
  organisation: null
}
const file = fileDatabase()

/** Fails the `n`th statement that records a batch's progress, as a crash between two chunks would. */
function failingProgress (n: number): KyselyPlugin {
  let seen = 0
  return {
    transformQuery: ({ node }: { node: RootOperationNode }) => {
      if (JSON.stringify(node).includes('update domain_batches set results') && ++seen === n) {
        throw new Error('connection lost')
      }
      return node
    },
    transformResult: async ({ result }) => result
  }
}

describe('batch registration cut short', () => {
  it('is resumed by a repeat once its lease has passed, creating each domain once', async () => {
    const clock = testClock()
    const items = Array.from({ length: BATCH_CHUNK + 100 }, (_, i) => ({
      type: 'Asset', class: PROTOCOL, externalId: `RES-${i}`
    }))
    const options = { clock: clock.date, idempotencyTtlMs: 86_400_000 }
    const crashing = createBatchService({ db: file.database.db.withPlugin(failingProgress(2)), ...options })
    await expect(crashing.register(caller, { items }, 'delivery-7')).rejects.toThrow('connection lost')

    const batches = createBatchService({ db: file.database.db, ...options })
    await expect(batches.register(caller, { items }, 'delivery-7')).rejects.toMatchObject({
      code: 'DOMAIN_BATCH_IN_PROGRESS', statusCode: 409
    })
    clock.advance(61_000)
    const resumed = await batches.register(caller, { items }, 'delivery-7')
    expect(resumed.replayed).toBe(false)
    expect(resumed.result).toMatchObject({ created: items.length, failed: 0 })
    expect(resumed.result.items.map((r) => r.externalId)).toEqual(items.map((item) => item.externalId))

    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from domains where external_id like 'RES-%'`.execute(file.database.db)
    expect(rows[0]!.n).toBe(items.length)
    const replay = await batches.register(caller, { items }, 'delivery-7')
    expect(replay).toEqual({ result: resumed.result, replayed: true })
  })
})
