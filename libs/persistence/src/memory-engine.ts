import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { readFile, rename, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'

// The package does not export its package.json; its entry is dist/index.js.
const manifest = new URL('../package.json', import.meta.resolve('@electric-sql/pglite'))
const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }
const IMAGE = join(tmpdir(), `impact-pglite-${version}-blank.tar`)

let image: Promise<Blob | undefined> | undefined

async function savedImage (): Promise<Blob | undefined> {
  try {
    return new Blob([await readFile(IMAGE)])
  } catch {
    return undefined
  }
}

/**
 * A fresh in-memory engine. Creating one runs initdb (about a second); loading a blank cluster's image
 * takes a fifth of that, so the machine's first engine saves one (keyed by PGlite's version) for the rest.
 */
export async function openMemoryEngine (): Promise<PGlite> {
  image ??= savedImage()
  const saved = await image
  if (saved !== undefined) {
    try {
      return await PGlite.create({ loadDataDir: saved })
    } catch {
      // An unreadable image (a damaged temporary file) is replaced by a fresh one below.
    }
  }
  const engine = await PGlite.create()
  const blank = await engine.dumpDataDir('none')
  image = Promise.resolve(blank)
  const partial = `${IMAGE}.${randomUUID()}`
  await writeFile(partial, Buffer.from(await blank.arrayBuffer()))
  await rename(partial, IMAGE)
  return engine
}
