import { randomUUID } from 'node:crypto'
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { readFile, stat } from 'node:fs/promises'
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
    const path = memoryImagePath(key)
    // The temporary directory is shared: an image another user left there could hold anything.
    if ((await stat(path)).uid !== (process.getuid?.() ?? 0)) return undefined
    return new Blob([await readFile(path)])
  } catch {
    return undefined
  }
}

async function keptImage (key: string): Promise<Blob | undefined> {
  let image = images.get(key)
  if (image === undefined) images.set(key, image = savedImage(key))
  return await image
}

/** Drops an image that would not load (a damaged temporary file): the next engine builds and keeps a whole one. */
export function dropImage (recipe?: MemoryImageRecipe): void {
  const key = recipe?.key ?? BLANK
  images.delete(key)
  rmSync(memoryImagePath(key), { force: true })
}

async function fromImage (key: string): Promise<PGlite | undefined> {
  const saved = await keptImage(key)
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

/** The image of a blank cluster, or of one `recipe` prepared: the kept one, else built in memory and kept. */
export async function clusterImage (recipe?: MemoryImageRecipe): Promise<Blob> {
  const key = recipe?.key ?? BLANK
  const kept = await keptImage(key)
  if (kept !== undefined) return kept
  await (await openMemoryEngine(recipe)).close()
  const built = await keptImage(key)
  if (built === undefined) throw new Error(`no image of ${key} after building one`)
  return built
}
