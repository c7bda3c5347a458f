import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { MEMORY_DATA_DIR } from '@impact/persistence'
import type { Config } from '../config.ts'

/**
 * The bootstrap admin key: DOMAIN_API_ADMIN_KEY, or in development a random one kept in DATA_DIR/admin-key
 * (mode 0600), so `npm start` gives a usable registry without anyone inventing a weak key.
 */
export function resolveAdminKey (config: Config): { key: string, generatedAt?: string } | undefined {
  if (config.DOMAIN_API_ADMIN_KEY !== undefined) return { key: config.DOMAIN_API_ADMIN_KEY }
  if (config.NODE_ENV !== 'development' || config.DATA_DIR === MEMORY_DATA_DIR) return undefined
  const dir = resolve(config.DATA_DIR)
  const file = join(dir, 'admin-key')
  try {
    const key = readFileSync(file, 'utf8').trim()
    if (key.length >= 32) return { key, generatedAt: file }
  } catch {
    // Not generated yet.
  }
  mkdirSync(dir, { recursive: true })
  const key = `dk_${randomBytes(32).toString('base64url')}`
  writeFileSync(file, `${key}\n`, { mode: 0o600 })
  return { key, generatedAt: file }
}
