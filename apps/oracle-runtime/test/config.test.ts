import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError } from '@impact/service-kit'
import { freshIdentity } from '@impact/service-kit/testing'
import { loadConfig } from '../src/config.ts'
import { loadOracleIdentity } from '../src/services/oracle-identity.ts'

describe('oracle identity and config', () => {
  it('refuses to start in production without ORACLE_PRIVATE_KEY', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(ConfigError)
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/ORACLE_PRIVATE_KEY is required in production/)
  })

  it('refuses a malformed key without echoing it', () => {
    try {
      loadConfig({ ORACLE_PRIVATE_KEY: 'secret-but-wrong' })
      expect.unreachable()
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError)
      expect((error as Error).message).not.toContain('secret-but-wrong')
    }
  })

  it('refuses empty or unreadable rate-limit budgets, and has budgets by default', () => {
    expect(() => loadConfig({ RATE_LIMIT_PRINCIPAL_MAX: '0' })).toThrow(ConfigError)
    expect(() => loadConfig({ RATE_LIMIT_WINDOW_MS: 'a minute' })).toThrow(/RATE_LIMIT_WINDOW_MS/)
    expect(loadConfig({})).toMatchObject({
      RATE_LIMIT_MAX: 3000,
      RATE_LIMIT_AUTH_FAILURES_MAX: 100,
      RATE_LIMIT_PRINCIPAL_MAX: 300,
      RATE_LIMIT_PRINCIPAL_WINDOW_MS: 60_000
    })
  })

  it('uses ORACLE_PRIVATE_KEY, and ORACLE_DID as the addressed DID when set', async () => {
    const { key, did } = await freshIdentity()
    const plain = await loadOracleIdentity(loadConfig({ ORACLE_PRIVATE_KEY: key }))
    expect(plain).toMatchObject({ did, keyDid: did, source: 'env' })
    const ixo = await loadOracleIdentity(loadConfig({ ORACLE_PRIVATE_KEY: key, ORACLE_DID: 'did:ixo:ixo1oracle' }))
    expect(ixo).toMatchObject({ did: 'did:ixo:ixo1oracle', keyDid: did })
  })

  it('generates a development key once into DATA_DIR, owner-readable only, and reuses it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'oracle-identity-'))
    try {
      const first = await loadOracleIdentity(loadConfig({ DATA_DIR: dir }))
      expect(first.source).toBe('generated')
      expect((await stat(join(dir, 'oracle-private-key'))).mode & 0o777).toBe(0o600)
      const second = await loadOracleIdentity(loadConfig({ DATA_DIR: dir }))
      expect(second).toMatchObject({ did: first.did, source: 'file' })
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('keeps a generated key in memory for memory://', async () => {
    const a = await loadOracleIdentity(loadConfig({ DATA_DIR: 'memory://' }))
    const b = await loadOracleIdentity(loadConfig({ DATA_DIR: 'memory://' }))
    expect(a.did).not.toBe(b.did)
  })
})
