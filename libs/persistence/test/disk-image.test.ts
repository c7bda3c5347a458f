import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { describe, expect, it, onTestFinished } from 'vitest'
import { MigrationsPendingError } from '../src/index.ts'
import { memoryImagePath } from '../src/memory-engine.ts'
import { migrationSetKey } from '../src/migrations.ts'
import { openEmbedded, ownTable, schemaOf, timestamps } from './fixtures/images.ts'
import { findNote, insertNote, notesMigrations } from './fixtures/notes.ts'

/** An empty directory holding only an app's key file, as a data directory at first start does. */
async function dataDir () {
  const dir = await mkdtemp(join(tmpdir(), 'persistence-disk-'))
  onTestFinished(async () => { await rm(dir, { recursive: true, force: true }) })
  await writeFile(join(dir, 'app.key'), 'secret\n', { mode: 0o600 })
  return dir
}

/** A ustar entry of a file, as tar writes one (but for the checksum, which the loader does not read). */
function tarEntry (name: string, body: string): Uint8Array {
  const header = new Uint8Array(512)
  const put = (text: string, at: number) => { header.set(new TextEncoder().encode(text), at) }
  put(name, 0)
  put('0000600\0', 100)
  put(`${body.length.toString(8).padStart(11, '0')}\0`, 124)
  put('0', 156)
  put('ustar\u000000', 257)
  const data = new Uint8Array(Math.ceil(body.length / 512) * 512)
  data.set(new TextEncoder().encode(body))
  return new Uint8Array([...header, ...data])
}

const appKeyKept = async (dir: string) => {
  expect(await readFile(join(dir, 'app.key'), 'utf8')).toBe('secret\n')
  expect((await stat(join(dir, 'app.key'))).mode & 0o777).toBe(0o600)
}

// Each test builds images of its own, as a fresh machine does: slow on a loaded one.
describe('embedded databases on disk, first started from an image', { timeout: 120_000 }, () => {
  it('match a freshly migrated database, and keep what was written across restarts', async () => {
    const table = ownTable()
    const dir = await dataDir()
    const fresh = await openEmbedded(notesMigrations, table, 'never')
    await fresh.migrate()
    const first = await openEmbedded(notesMigrations, table, 'auto', dir)
    expect(await schemaOf(first.db, table)).toEqual(await schemaOf(fresh.db, table))
    await first.ready()
    await insertNote(first.db, { slug: 'kept', body: 'on disk', amount: '2' })
    const history = await timestamps(first.db, table)
    await first.close()

    const again = await openEmbedded(notesMigrations, table, 'auto', dir)
    expect((await findNote(again.db, 'kept'))?.body).toBe('on disk')
    expect(await timestamps(again.db, table)).toEqual(history)
    await appKeyKept(dir)
  })

  it('start blank when migrations are left to their job, keeping the directory\'s other files', async () => {
    const table = ownTable()
    const dir = await dataDir()
    const database = await openEmbedded(notesMigrations, table, 'never', dir)
    await expect(database.ready()).rejects.toBeInstanceOf(MigrationsPendingError)
    const { rows } = await sql`select count(*)::int as n from information_schema.tables
      where table_schema = 'public'`.execute(database.db)
    expect(rows).toEqual([{ n: 0 }])
    await database.migrate()
    await database.ready()
    await appKeyKept(dir)
  })

  it('get a whole cluster from a damaged image, which is replaced', async () => {
    const table = ownTable()
    const dir = await dataDir()
    const path = memoryImagePath(migrationSetKey({ migrations: notesMigrations, migrationTable: table }))
    await writeFile(path, 'not a tar')
    const database = await openEmbedded(notesMigrations, table, 'auto', dir)
    expect((await schemaOf(database.db, table)).history).toHaveLength(2)
    await insertNote(database.db, { slug: 'written', body: 'x', amount: '1' })
    expect((await stat(path)).size).toBeGreaterThan(1000)
    await appKeyKept(dir)
  })

  it('never write outside the directory for an image whose entries climb out of it', async () => {
    const table = ownTable()
    const parent = await mkdtemp(join(tmpdir(), 'persistence-parent-'))
    onTestFinished(async () => { await rm(parent, { recursive: true, force: true }) })
    const dir = join(parent, 'data')
    const path = memoryImagePath(migrationSetKey({ migrations: notesMigrations, migrationTable: table }))
    const entries = [tarEntry('PG_VERSION', '17\n'), tarEntry('../escaped', 'x'), new Uint8Array(1024)]
    await writeFile(path, new Uint8Array(entries.flatMap((entry) => [...entry])))
    const database = await openEmbedded(notesMigrations, table, 'auto', dir)
    expect((await schemaOf(database.db, table)).history).toHaveLength(2)
    expect(await readdir(parent)).toEqual(['data'])
    expect((await stat(path)).size).toBeGreaterThan(1_000_000)
  })
})
