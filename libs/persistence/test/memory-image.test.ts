import { randomBytes } from 'node:crypto'
import { readdir, rm, stat, writeFile } from 'node:fs/promises'
import { basename, dirname } from 'node:path'
import { sql, type Kysely } from 'kysely'
import { describe, expect, it, onTestFinished } from 'vitest'
import { openDatabase, type MigrationSet } from '../src/index.ts'
import { memoryImagePath } from '../src/memory-engine.ts'
import { migrationSetKey } from '../src/migrations.ts'
import { notesMigrations } from './fixtures/notes.ts'

/** A migration table of the test's own, so its images are built here (as on a fresh machine) and removed after. */
function ownTable () {
  const migrationTable = `image_${randomBytes(4).toString('hex')}`
  onTestFinished(async () => {
    const dir = dirname(memoryImagePath('x'))
    const prefix = basename(memoryImagePath(migrationTable))
    const ours = (await readdir(dir)).filter((name) => name.startsWith(prefix.slice(0, -'.tar'.length)))
    await Promise.all(ours.map(async (name) => { await rm(`${dir}/${name}`, { force: true }) }))
  })
  return migrationTable
}

async function open (migrations: MigrationSet, migrationTable: string, migrate: 'auto' | 'never' = 'auto') {
  const database = await openDatabase<any>({ dataDir: 'memory://', migrations, migrationTable, migrate })
  onTestFinished(async () => { await database.close() })
  return database
}

/** Tables, columns, indexes and constraints of the public schema, and the migration history. */
async function schemaOf (db: Kysely<any>, migrationTable: string) {
  const columns = await sql`select table_name, column_name, data_type, is_nullable, column_default, ordinal_position
    from information_schema.columns where table_schema = 'public' order by table_name, ordinal_position`.execute(db)
  const indexes = await sql`select tablename, indexname, indexdef from pg_indexes
    where schemaname = 'public' order by indexname`.execute(db)
  const constraints = await sql`select conrelid::regclass::text as rel, conname, pg_get_constraintdef(oid) as def
    from pg_constraint where connamespace = 'public'::regnamespace order by conname`.execute(db)
  const history = await sql`select name from ${sql.table(migrationTable)} order by name`.execute(db)
  return { columns: columns.rows, indexes: indexes.rows, constraints: constraints.rows, history: history.rows }
}

const timestamps = async (db: Kysely<any>, table: string) =>
  (await sql<{ timestamp: string }>`select timestamp from ${sql.table(table)} order by name`.execute(db)).rows

// Each test builds images of its own, as a fresh machine does: slow on a loaded one.
describe('in-memory databases started from the image of a migrated cluster', { timeout: 120_000 }, () => {
  it('match a freshly migrated database: tables, columns, indexes, constraints and migration history', async () => {
    const table = ownTable()
    const fresh = await open(notesMigrations, table, 'never')
    await fresh.migrate()
    const built = await open(notesMigrations, table)
    const cloned = await open(notesMigrations, table)

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
    const first = await open(notesMigrations, table)
    await sql`insert into notes (slug, body, amount) values ('mine', 'x', 1)`.execute(first.db)
    const second = await open(notesMigrations, table)
    expect((await sql`select * from notes`.execute(second.db)).rows).toEqual([])
  })

  it('never reuse the image of another migration set: a changed or an added migration', async () => {
    const table = ownTable()
    await open(notesMigrations, table)
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
      const database = await open(migrations, table)
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
    const databases = await Promise.all([1, 2].map(async () => await open(notesMigrations, table)))
    for (const database of databases) await database.ready()
    expect((await stat(path)).size).toBeGreaterThan(0)
    const leftovers = (await readdir(dirname(path))).filter((name) => name.startsWith(`${basename(path)}.`))
    expect(leftovers).toEqual([])
  })

  it('replace a damaged image with a whole one', async () => {
    const table = ownTable()
    const path = memoryImagePath(migrationSetKey({ migrations: notesMigrations, migrationTable: table }))
    await writeFile(path, 'not a tar')
    const database = await open(notesMigrations, table)
    expect((await schemaOf(database.db, table)).history).toHaveLength(2)
    expect((await stat(path)).size).toBeGreaterThan(1000)
  })
})
