import { readdir, stat, writeFile } from 'node:fs/promises'
import { basename, dirname } from 'node:path'
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import type { MigrationSet } from '../src/index.ts'
import { memoryImagePath } from '../src/memory-engine.ts'
import { migrationSetKey } from '../src/migrations.ts'
import { openEmbedded, ownTable, schemaOf, timestamps } from './fixtures/images.ts'
import { notesMigrations } from './fixtures/notes.ts'

// Each test builds images of its own, as a fresh machine does: slow on a loaded one.
describe('in-memory databases started from the image of a migrated cluster', { timeout: 120_000 }, () => {
  it('match a freshly migrated database: tables, columns, indexes, constraints and migration history', async () => {
    const table = ownTable()
    const fresh = await openEmbedded(notesMigrations, table, 'never')
    await fresh.migrate()
    const built = await openEmbedded(notesMigrations, table)
    const cloned = await openEmbedded(notesMigrations, table)

    const expected = await schemaOf(fresh.db, table)
    expect(expected.history).toHaveLength(2)
    expect(expected.columns.length).toBeGreaterThan(5)
    expect(await schemaOf(built.db, table)).toEqual(expected)
    expect(await schemaOf(cloned.db, table)).toEqual(expected)
    // The clone was not migrated again: it carries the history recorded when its image was built.
    expect(await timestamps(cloned.db, table)).toEqual(await timestamps(built.db, table))
    await cloned.ready()
  })

  it('are independent: what one writes, the next one opened from the same image does not see', async () => {
    const table = ownTable()
    const first = await openEmbedded(notesMigrations, table)
    await sql`insert into notes (slug, body, amount) values ('mine', 'x', 1)`.execute(first.db)
    const second = await openEmbedded(notesMigrations, table)
    expect((await sql`select * from notes`.execute(second.db)).rows).toEqual([])
  })

  it('never reuse the image of another migration set: a changed or an added migration', async () => {
    const table = ownTable()
    await openEmbedded(notesMigrations, table)
    const addTags = Object.keys(notesMigrations)[1] as string
    const changed: MigrationSet = {
      ...notesMigrations,
      [addTags]: { up: async (db) => { await db.schema.alterTable('notes').addColumn('labels', 'text').execute() } }
    }
    const added: MigrationSet = {
      ...notesMigrations,
      '2026_11_21_000200_add_note_views': {
        up: async (db) => { await db.schema.alterTable('notes').addColumn('views', 'integer').execute() }
      }
    }
    const columns = async (migrations: MigrationSet) => {
      const database = await openEmbedded(migrations, table)
      const { rows } = await sql<{ column_name: string }>`select column_name from information_schema.columns
        where table_name = 'notes' order by ordinal_position`.execute(database.db)
      return rows.map((row) => row.column_name)
    }
    expect(await columns(changed)).toEqual(['id', 'slug', 'body', 'amount', 'created_at', 'labels'])
    expect(await columns(added)).toEqual(['id', 'slug', 'body', 'amount', 'created_at', 'tags', 'views'])
    expect(await columns(notesMigrations)).toEqual(['id', 'slug', 'body', 'amount', 'created_at', 'tags'])
  })

  it('survive suites building the same image side by side, and leave only whole images behind', async () => {
    const table = ownTable()
    const path = memoryImagePath(migrationSetKey({ migrations: notesMigrations, migrationTable: table }))
    const databases = await Promise.all([1, 2].map(async () => await openEmbedded(notesMigrations, table)))
    for (const database of databases) await database.ready()
    expect((await stat(path)).size).toBeGreaterThan(0)
    const leftovers = (await readdir(dirname(path))).filter((name) => name.startsWith(`${basename(path)}.`))
    expect(leftovers).toEqual([])
  })

  it('replace a damaged image with a whole one', async () => {
    const table = ownTable()
    const path = memoryImagePath(migrationSetKey({ migrations: notesMigrations, migrationTable: table }))
    await writeFile(path, 'not a tar')
    const database = await openEmbedded(notesMigrations, table)
    expect((await schemaOf(database.db, table)).history).toHaveLength(2)
    expect((await stat(path)).size).toBeGreaterThan(1000)
  })
})
