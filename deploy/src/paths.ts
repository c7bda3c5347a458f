import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository root. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url))

export const repoPath = (...segments: string[]): string => join(ROOT, ...segments)

export const readRepoFile = (...segments: string[]): string => readFileSync(repoPath(...segments), 'utf8')

/** Every file under a repository folder (relative to the root), skipping installed and built trees. */
export function listFiles (folder: string): string[] {
  const out: string[] = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      if (entry === 'node_modules' || entry === 'dist' || entry === '.data') continue
      const full = join(dir, entry)
      if (statSync(full).isDirectory()) walk(full)
      else out.push(relative(ROOT, full))
    }
  }
  walk(repoPath(folder))
  return out.sort()
}
