import { createHash, hkdfSync, randomBytes } from 'node:crypto'
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { MEMORY_DATA_DIR } from '@impact/persistence'

/** Keys derived from one `PIN_ENCRYPTION_KEY`: each purpose gets its own, so none is reused. */
export interface PinKey {
  id: string
  /** AES-256-GCM key sealing PIN hashes at rest. */
  seal: Buffer
  /** HMAC pepper applied before scrypt, so a leaked table alone cannot be searched offline. */
  pepper: Buffer
  /** AES-256-GCM key sealing the accounts' private signing keys at rest (services/account-keys.ts). */
  accountKeySeal: Buffer
  /** AES-256-GCM key sealing queued SMS in the shared state (a temporary PIN may be in the text). */
  smsSeal: Buffer
}

export interface Keyring {
  current: PinKey
  /** Current and retired keys by id, for reading records sealed before a rotation. */
  byId: ReadonlyMap<string, PinKey>
}

const KEY_BYTES = 32
const DEV_KEY_FILE = 'pin-encryption.key'

/** Decodes a 32-byte key given as 64 hex characters or base64; undefined for anything else. */
export function parseKeyMaterial (value: string): Buffer | undefined {
  const text = value.trim()
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex')
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) {
    const bytes = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64')
    return bytes.length === KEY_BYTES ? bytes : undefined
  }
  return undefined
}

/** A short public id of a key (no secret: a truncated SHA-256 over a domain-separated input). */
export const keyFingerprint = (material: Buffer): string =>
  createHash('sha256').update('ussd-pin-key-id\0').update(material).digest('hex').slice(0, 8)

const derive = (material: Buffer, purpose: string): Buffer =>
  Buffer.from(hkdfSync('sha256', material, Buffer.alloc(0), `ussd-gateway/${purpose}/v1`, KEY_BYTES))

export function deriveKey (id: string, material: Buffer): PinKey {
  return {
    id,
    seal: derive(material, 'pin-seal'),
    pepper: derive(material, 'pin-pepper'),
    accountKeySeal: derive(material, 'account-key-seal'),
    smsSeal: derive(material, 'sms-seal')
  }
}

/** `id:key,id:key` of PIN_ENCRYPTION_PREVIOUS_KEYS; undefined when any entry is malformed. */
export function parsePreviousKeys (value: string | undefined): Array<{ id: string, material: Buffer }> | undefined {
  if (value === undefined || value.trim() === '') return []
  const keys: Array<{ id: string, material: Buffer }> = []
  for (const entry of value.split(',')) {
    const separator = entry.indexOf(':')
    const id = entry.slice(0, separator).trim()
    const material = separator > 0 ? parseKeyMaterial(entry.slice(separator + 1)) : undefined
    if (!/^[A-Za-z0-9_-]{1,16}$/.test(id) || material === undefined) return undefined
    keys.push({ id, material })
  }
  return keys
}

// One development key per process for `memory://` data dirs, so apps built side by side in one
// process (tests, a bench) read each other's records like replicas of one deployment.
let memoryKey: Buffer | undefined

/**
 * The development key when none is configured: generated once and kept in DATA_DIR (mode 0600),
 * or in memory for `memory://`. Production never gets here (config refuses to start without a key).
 */
function developmentKey (dataDir: string): Buffer {
  if (dataDir === MEMORY_DATA_DIR) return (memoryKey ??= randomBytes(KEY_BYTES))
  const dir = resolve(dataDir)
  const file = join(dir, DEV_KEY_FILE)
  mkdirSync(dir, { recursive: true })
  try {
    // `wx` creates the file only when it is absent, so concurrent first starts agree on one key.
    writeFileSync(file, `${randomBytes(KEY_BYTES).toString('hex')}\n`, { flag: 'wx', mode: 0o600 })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  chmodSync(file, 0o600)
  const material = parseKeyMaterial(readFileSync(file, 'utf8'))
  if (material === undefined) {
    throw new Error(`${file} does not hold a 32-byte hex key; delete it to generate a new one`)
  }
  return material
}

export interface KeyringConfig {
  PIN_ENCRYPTION_KEY?: string | undefined
  PIN_ENCRYPTION_KEY_ID?: string | undefined
  PIN_ENCRYPTION_PREVIOUS_KEYS?: string | undefined
  DATA_DIR: string
}

/** Validation messages for config.ts (values are never echoed). */
export function keyringIssues (config: KeyringConfig): string[] {
  const issues: string[] = []
  if (config.PIN_ENCRYPTION_KEY !== undefined && parseKeyMaterial(config.PIN_ENCRYPTION_KEY) === undefined) {
    issues.push('PIN_ENCRYPTION_KEY must be 32 bytes written as 64 hex characters or base64')
  }
  if (parsePreviousKeys(config.PIN_ENCRYPTION_PREVIOUS_KEYS) === undefined) {
    issues.push(
      'PIN_ENCRYPTION_PREVIOUS_KEYS must be id:key pairs separated by commas (ids of 1-16 letters, digits, _ or -)'
    )
  }
  return issues
}

export function loadKeyring (config: KeyringConfig): Keyring {
  const configured = config.PIN_ENCRYPTION_KEY !== undefined ? parseKeyMaterial(config.PIN_ENCRYPTION_KEY) : undefined
  if (config.PIN_ENCRYPTION_KEY !== undefined && configured === undefined) {
    throw new Error('PIN_ENCRYPTION_KEY is malformed')
  }
  const material = configured ?? developmentKey(config.DATA_DIR)
  const current = deriveKey(config.PIN_ENCRYPTION_KEY_ID ?? keyFingerprint(material), material)
  const byId = new Map<string, PinKey>()
  for (const previous of parsePreviousKeys(config.PIN_ENCRYPTION_PREVIOUS_KEYS) ?? []) {
    byId.set(previous.id, deriveKey(previous.id, previous.material))
  }
  byId.set(current.id, current)
  return { current, byId }
}
