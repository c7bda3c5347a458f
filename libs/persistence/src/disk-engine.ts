import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { clusterImage, dropImage, type MemoryImageRecipe } from './memory-engine.ts'

export interface EmbeddedEngine {
  engine: PGlite
  /** Whether the cluster is a copy of the image `recipe` prepared (else it is as it was, or blank). */
  prepared: boolean
}

/**
 * The embedded cluster kept in `dataDir`. A directory without one gets a copy of the image of a blank
 * cluster, or of one `recipe` prepared, far cheaper than initdb; one with a cluster is opened as it is.
 */
export async function openDiskEngine (
  dataDir: string,
  recipe?: MemoryImageRecipe,
  retry = true
): Promise<EmbeddedEngine> {
  const path = resolve(dataDir)
  mkdirSync(path, { recursive: true })
  // PG_VERSION is what PostgreSQL itself reads to tell a cluster from an empty directory.
  if (existsSync(join(path, 'PG_VERSION'))) return { engine: await PGlite.create(path), prepared: false }
  // The directory may hold an app's other files (its key): only what the copy added is removed on failure.
  const before = new Set(readdirSync(path))
  const image = await clusterImage(recipe)
  try {
    return { engine: await PGlite.create({ dataDir: path, loadDataDir: image }), prepared: recipe !== undefined }
  } catch (error) {
    for (const name of readdirSync(path)) {
      if (!before.has(name)) rmSync(join(path, name), { recursive: true, force: true })
    }
    if (!retry) throw error
    // A kept image cut short or damaged: built afresh once.
    dropImage(recipe)
    return await openDiskEngine(dataDir, recipe, false)
  }
}
