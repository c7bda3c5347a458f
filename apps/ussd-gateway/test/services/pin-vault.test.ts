import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { keyFingerprint, loadKeyring, parseKeyMaterial } from '../../src/services/pin-keyring.ts'
import { createPinVault, isWeakPin } from '../../src/services/pin-vault.ts'

const KEY = 'b'.repeat(64)
const OTHER = Buffer.alloc(32, 7).toString('base64')

describe('PIN vault', () => {
  const vault = createPinVault(loadKeyring({ PIN_ENCRYPTION_KEY: KEY, DATA_DIR: 'memory://' }))

  it('seals a PIN so that only the same PIN verifies, and never stores it in clear', async () => {
    const record = await vault.seal('48213')
    expect(record).not.toContain('48213')
    expect(record.split('$')).toHaveLength(5)
    expect(await vault.verify('48213', record)).toEqual({ ok: true, stale: false })
    expect((await vault.verify('48214', record)).ok).toBe(false)
  })

  it('uses a random salt and IV: equal PINs give different records', async () => {
    const [a, b] = await Promise.all([vault.seal('48213'), vault.seal('48213')])
    expect(a).not.toBe(b)
    expect(a.split('$')[2]).not.toBe(b.split('$')[2])
  })

  it('throws on tampered records and records sealed under an unknown key (no wrong-PIN verdict)', async () => {
    const record = await vault.seal('48213')
    const parts = record.split('$')
    // One bit of the ciphertext flipped: rewriting its last base64 characters instead left the
    // decoded bytes unchanged now and then (about once in 256 runs), and the test failed.
    const ciphertext = Buffer.from(parts[4] ?? '', 'base64url')
    ciphertext[ciphertext.length - 1] = (ciphertext.at(-1) ?? 0) ^ 1
    const flipped = [...parts.slice(0, 4), ciphertext.toString('base64url')].join('$')
    await expect(vault.verify('48213', flipped)).rejects.toMatchObject({ code: 'USSD_PIN_RECORD_UNREADABLE' })
    const stranger = createPinVault(loadKeyring({ PIN_ENCRYPTION_KEY: 'c'.repeat(64), DATA_DIR: 'memory://' }))
    await expect(stranger.verify('48213', record)).rejects.toMatchObject({ code: 'USSD_PIN_RECORD_UNREADABLE' })
    await expect(vault.verify('48213', 'garbage')).rejects.toMatchObject({ code: 'USSD_PIN_RECORD_UNREADABLE' })
  })

  it('stores the key id in each record and reads records of a retired key after rotation', async () => {
    const old = createPinVault(
      loadKeyring({ PIN_ENCRYPTION_KEY: OTHER, PIN_ENCRYPTION_KEY_ID: 'k2025', DATA_DIR: 'memory://' })
    )
    const record = await old.seal('48213')
    expect(record.split('$')[1]).toBe('k2025')
    const rotated = createPinVault(
      loadKeyring({ PIN_ENCRYPTION_KEY: KEY, PIN_ENCRYPTION_PREVIOUS_KEYS: `k2025:${OTHER}`, DATA_DIR: 'memory://' })
    )
    expect(await rotated.verify('48213', record)).toEqual({ ok: true, stale: true })
    expect(rotated.keyId).toBe(keyFingerprint(Buffer.from(KEY, 'hex')))
  })

  it('refuses repeated digits and straight runs', () => {
    for (const pin of ['00000', '11111', '99999', '12345', '54321', '01234', '56789', '98765', '43210']) {
      expect(isWeakPin(pin)).toBe(true)
    }
    for (const pin of ['48213', '12346', '10203', '13579']) expect(isWeakPin(pin)).toBe(false)
  })
})

describe('PIN key', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ussd-key-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('accepts 32-byte keys as hex or base64 only', () => {
    expect(parseKeyMaterial(KEY)).toHaveLength(32)
    expect(parseKeyMaterial(OTHER)).toHaveLength(32)
    expect(parseKeyMaterial('short')).toBeUndefined()
    expect(parseKeyMaterial('a'.repeat(62))).toBeUndefined()
  })

  it('generates a development key once, keeps it in DATA_DIR with mode 0600 and reuses it', async () => {
    const first = loadKeyring({ DATA_DIR: dir })
    const file = join(dir, 'pin-encryption.key')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const second = loadKeyring({ DATA_DIR: dir })
    expect(second.current.id).toBe(first.current.id)
    const record = await createPinVault(first).seal('48213')
    expect((await createPinVault(second).verify('48213', record)).ok).toBe(true)
    expect(readFileSync(file, 'utf8').trim()).toMatch(/^[0-9a-f]{64}$/)
  })

  it('keeps one in-memory development key per process for memory:// data dirs', () => {
    expect(loadKeyring({ DATA_DIR: 'memory://' }).current.id).toBe(loadKeyring({ DATA_DIR: 'memory://' }).current.id)
  })
})
