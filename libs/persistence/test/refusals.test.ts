import { describe, expect, it } from 'vitest'
import { sql } from 'kysely'
import { DatabaseRefusalError, inTransaction, isUniqueViolation } from '../src/index.ts'
import { insertNote, openNotes } from './fixtures/notes.ts'

const serverUrl = process.env.DATABASE_URL ?? ''
const backends = [{ name: 'PGlite', serverUrl: '' }, ...(serverUrl !== '' ? [{ name: 'PostgreSQL', serverUrl }] : [])]

describe.each(backends)('database refusals on $name', ({ serverUrl }) => {
  it('reports values the database cannot store as 400 PERSIST_INVALID_VALUE, without the driver\'s text', async () => {
    const database = await openNotes(serverUrl)
    for (const note of [{ slug: 'nul', body: 'a\u0000b', amount: '1' }, { slug: 'huge', body: 'x', amount: '1e40' }]) {
      const error = await insertNote(database.db, note).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(DatabaseRefusalError)
      expect(error).toMatchObject({ statusCode: 400, code: 'PERSIST_INVALID_VALUE' })
      expect((error as Error).message).not.toMatch(/0x00|overflow/)
    }
  })

  it('reports a duplicate as 409 PERSIST_DUPLICATE that isUniqueViolation still recognises', async () => {
    const database = await openNotes(serverUrl)
    await insertNote(database.db, { slug: 'dup', body: 'one', amount: '0' })
    const error = await insertNote(database.db, { slug: 'dup', body: 'two', amount: '0' }).catch((e: unknown) => e)
    expect(error).toMatchObject({ statusCode: 409, code: 'PERSIST_DUPLICATE', sqlState: '23505' })
    expect(isUniqueViolation(error)).toBe(true)
  })

  it('reports a reference to a deleted row as 409 PERSIST_REFERENCE_GONE, inside a transaction too', async () => {
    const database = await openNotes(serverUrl)
    await sql`create table note_links (note_id uuid not null references notes(id))`.execute(database.db)
    const error = await inTransaction(database.db, async (trx) => {
      await sql`insert into note_links values (gen_random_uuid())`.execute(trx)
    }).catch((e: unknown) => e)
    expect(error).toMatchObject({ statusCode: 409, code: 'PERSIST_REFERENCE_GONE' })
  })
})

describe.runIf(serverUrl !== '')('transactions on PostgreSQL', () => {
  it('runs again a transaction that PostgreSQL aborted to break a deadlock, so both callers succeed', async () => {
    const database = await openNotes(serverUrl, { poolMax: 4 })
    const [a, b] = await Promise.all(
      ['a', 'b'].map(async (slug) => await insertNote(database.db, { slug, body: '0', amount: '0' }))
    )
    let attempts = 0
    let bothHoldOne = () => {}
    const holding = new Promise<void>((resolve) => { let n = 0; bothHoldOne = () => { if (++n === 2) resolve() } })
    // Each transaction locks its first row, waits until the other holds one too, then wants the other's row.
    const crossing = async (first: string, second: string) => await inTransaction(database.db, async (trx) => {
      attempts++
      await sql`update notes set body = body || '+' where id = ${first}`.execute(trx)
      if (attempts <= 2) {
        bothHoldOne()
        await holding
      }
      await sql`update notes set body = body || '+' where id = ${second}`.execute(trx)
    })
    await Promise.all([crossing(a?.id ?? '', b?.id ?? ''), crossing(b?.id ?? '', a?.id ?? '')])
    expect(attempts).toBe(3)
    const { rows } = await sql<{ body: string }>`select body from notes order by slug`.execute(database.db)
    expect(rows.map((row) => row.body)).toEqual(['0++', '0++'])
  })
})
