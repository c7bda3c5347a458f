import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { clusterImage, dropImage, type MemoryImageRecipe } from './memory-engine.ts'

const BLOCK = 512

const field = (header: Uint8Array, start: number, length: number) =>
  new TextDecoder().decode(header.subarray(start, start + length)).replace(/\0.*$/s, '')

/** Writes an image (PGlite's ustar dump of a cluster) into `dir` with plain writes, cheaper than PGlite's loader. */
function unpackImage (image: Uint8Array, dir: string): void {
  for (let at = 0; ;) {
    const header = image.subarray(at, at + BLOCK)
    if (header.length < BLOCK) throw new Error('the image is cut short')
    if (header.every((byte) => byte === 0)) break
    const name = [field(header, 345, 155), field(header, 0, 100)].filter((part) => part !== '').join('/')
    const size = Number.parseInt(field(header, 124, 12).trim() || '0', 8)
    const mode = Number.parseInt(field(header, 100, 8).trim() || '0', 8)
    const type = field(header, 156, 1)
    const parts = name.split('/').filter((part) => part !== '' && part !== '.')
    if (parts.includes('..') || Number.isNaN(size) || Number.isNaN(mode)) {
      throw new Error(`the image holds an unsafe entry: ${name}`)
    }
    if (at + BLOCK + size > image.length) throw new Error('the image is cut short')
    const target = join(dir, ...parts)
    if (type === '5') mkdirSync(target, { recursive: true, mode })
    else if (type === '0' || type === '') {
      mkdirSync(dirname(target), { recursive: true })
      writeFileSync(target, image.subarray(at + BLOCK, at + BLOCK + size), { mode })
    } else throw new Error(`the image holds an entry of type ${type}: ${name}`)
    at += BLOCK + Math.ceil(size / BLOCK) * BLOCK
  }
  if (!existsSync(join(dir, 'PG_VERSION'))) throw new Error('the image holds no cluster')
}

export interface EmbeddedEngine {
  engine: PGlite
  /** Whether the cluster is a copy of the image `recipe` prepared (else it is as it was, or blank). */
  prepared: boolean
}

/** The cluster in `dataDir`; a directory without one gets a copy of a blank or `recipe` image, cheaper than initdb. */
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
  const image = new Uint8Array(await (await clusterImage(recipe)).arrayBuffer())
  try {
    unpackImage(image, path)
    return { engine: await PGlite.create(path), prepared: recipe !== undefined }
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
