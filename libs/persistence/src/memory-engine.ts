import { randomUUID } from 'node:crypto'
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'

// The package does not export its package.json; its entry is dist/index.js.
const manifest = new URL('../package.json', import.meta.resolve('@electric-sql/pglite'))
const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }

// In-memory clusters hold test and development data: a small buffer pool and few slots start much faster.
const START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB', '-c', 'max_connections=5']

/** `key` must change whenever `prepare` would do otherwise. */
export interface MemoryImageRecipe {
  key: string
  prepare: (engine: PGlite) => Promise<void>
}

/** Shared by every process and suite on the machine. */
export const memoryImagePath = (key: string) => join(tmpdir(), `impact-pglite-${version}-${key}.tar`)

const BLANK = 'blank'
const images = new Map<string, Promise<Blob | undefined>>()

async function savedImage (key: string): Promise<Blob | undefined> {
  try {
    return new Blob([await readFile(memoryImagePath(key))])
  } catch {
    return undefined
  }
}

async function fromImage (key: string): Promise<PGlite | undefined> {
  let image = images.get(key)
  if (image === undefined) images.set(key, image = savedImage(key))
  const saved = await image
  if (saved === undefined) return undefined
  try {
    return await PGlite.create({ loadDataDir: saved, startParams: START_PARAMS })
  } catch {
    // An unreadable image (a damaged temporary file) is replaced by a fresh one.
    images.delete(key)
    return undefined
  }
}

// Written beside the target and renamed, so suites running side by side see no image or a whole one.
async function keep (key: string, engine: PGlite): Promise<void> {
  const image = await engine.dumpDataDir('none')
  images.set(key, Promise.resolve(image))
  const partial = `${memoryImagePath(key)}.${randomUUID()}`
  const bytes = new Uint8Array(await image.arrayBuffer())
  try {
    writeFileSync(partial, bytes)
    renameSync(partial, memoryImagePath(key))
  } catch {
    // Without a writable temporary directory every engine is built afresh: slower, still correct.
    rmSync(partial, { force: true })
  }
}

/** Loaded from a kept image, far cheaper than initdb; the first engine on the machine keeps the image. */
export async function openMemoryEngine (recipe?: MemoryImageRecipe): Promise<PGlite> {
  const key = recipe?.key ?? BLANK
  const ready = await fromImage(key)
  if (ready !== undefined) return ready
  if (recipe === undefined) {
    const engine = await PGlite.create({ startParams: START_PARAMS })
    await keep(BLANK, engine)
    return engine
  }
  const engine = await openMemoryEngine()
  try {
    await recipe.prepare(engine)
  } catch (error) {
    await engine.close()
    throw error
  }
  await keep(key, engine)
  return engine
}
