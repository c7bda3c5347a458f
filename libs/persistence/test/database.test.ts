import { describe, expect, it, onTestFinished } from 'vitest'
import { sql } from 'kysely'
import { isUniqueViolation, MigrationsPendingError, openDatabase, PersistenceError } from '../src/index.ts'
import { findNote, insertNote, listNotesTagged, notesMigrations, openNotes } from './fixtures/notes.ts'

// The embedded engine always runs; the server runs whenever DATABASE_URL is set (the CI server pass).
const backends = [
  { name: 'PGlite', serverUrl: '' },
  ...(process.env.DATABASE_URL !== undefined ? [{ name: 'PostgreSQL', serverUrl: process.env.DATABASE_URL }] : [])
]

describe.each(backends)('the same migrations and repository code on $name', ({ name, serverUrl }) => {
  const open = async () => await openNotes(serverUrl)

  it('migrates, writes and reads with identical results', async () => {
    const database = await open()
    expect(database.mode).toBe(name === 'PGlite' ? 'pglite' : 'postgres')
    await database.ping()

    const created = await insertNote(database.db, {
      slug: 'a',
      body: 'first',
      amount: '12.500000000000000001',
      tags: ['x', 'y']
    })
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(created.created_at).toBeInstanceOf(Date)
    expect(created.amount).toBe('12.500000000000000001')
    expect(created.tags).toEqual(['x', 'y'])

    await insertNote(database.db, { slug: 'b', body: 'second', amount: '1', tags: ['y'] })
    expect(await listNotesTagged(database.db, 'y')).toEqual([
      { slug: 'a', amount: '12.500000000000000001' },
      { slug: 'b', amount: '1.000000000000000000' }
    ])
    expect((await findNote(database.db, 'b'))?.body).toBe('second')
    expect(await findNote(database.db, 'missing')).toBeUndefined()
  })

  it('reports unique violations the same way and rolls back failed transactions', async () => {
    const database = await open()
    await insertNote(database.db, { slug: 'dup', body: 'one', amount: '0' })
    const error = await insertNote(database.db, { slug: 'dup', body: 'two', amount: '0' }).catch((e: unknown) => e)
    expect(isUniqueViolation(error)).toBe(true)

    await expect(database.db.transaction().execute(async (trx) => {
      await insertNote(trx, { slug: 'tx', body: 'inside', amount: '0' })
      throw new Error('abort')
    })).rejects.toThrow('abort')
    expect(await findNote(database.db, 'tx')).toBeUndefined()
  })

  it('is ready only once every migration is applied', async () => {
    const database = await openNotes(serverUrl, { migrate: 'never' })
    await database.ping()
    const pending = await database.ready().catch((e: unknown) => e)
    expect(pending).toBeInstanceOf(MigrationsPendingError)
    expect((pending as MigrationsPendingError).pending).toEqual(Object.keys(notesMigrations))
    expect((pending as MigrationsPendingError).healthState).toBe('migrations pending')
    await database.migrate()
    await database.ready()
    await database.ready()
  })

  it('is idempotent: migrating again applies nothing', async () => {
    const database = await open()
    await database.migrate()
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from fixture_migrations`.execute(database.db)
    expect(rows[0]?.n).toBe(2)
  })
})

describe('in-memory databases', () => {
  it('start as blank, independent clusters however many a process opens', async () => {
    const [first, second] = await Promise.all([openNotes(''), openNotes('')])
    await insertNote(first.db, { slug: 'only-here', body: 'x', amount: '1' })
    expect(await findNote(first.db, 'only-here')).toBeDefined()
    expect(await findNote(second.db, 'only-here')).toBeUndefined()
    const third = await openNotes('')
    expect(await findNote(third.db, 'only-here')).toBeUndefined()
  })
})

describe('failures', () => {
  it('names the migration that failed', async () => {
    const error = await openDatabase({
      dataDir: 'memory://',
      migrationTable: 'broken_migrations',
      migrate: 'always',
      migrations: {
        '2026_01_01_000000_broken': { up: async (db) => { await sql`select * from no_such_table`.execute(db) } }
      }
    }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PersistenceError)
    expect((error as PersistenceError).message).toMatch(/2026_01_01_000000_broken/)
  })

  it('ping fails fast when the server is unreachable', async () => {
    const database = await openDatabase({
      url: 'postgres://nobody@127.0.0.1:1/none',
      dataDir: 'memory://',
      migrations: {},
      migrationTable: 'm',
      migrate: 'never'
    })
    onTestFinished(async () => { await database.close() })
    await expect(database.ping(1000)).rejects.toThrow()
    const unready = await database.ready(1000).catch((e: unknown) => e)
    expect(unready).toBeInstanceOf(Error)
    expect(unready).not.toBeInstanceOf(MigrationsPendingError)
  })
})
