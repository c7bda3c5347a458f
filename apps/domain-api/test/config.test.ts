import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError } from '@impact/service-kit'
import { formatSigner, generateSigner } from '@impact/ucan'
import { externalClassMethods, loadConfig } from '../src/config.ts'
import { resolveAdminKey } from '../src/services/dev-admin-key.ts'

const strongKey = () => randomBytes(36).toString('base64url')
const privateKey = formatSigner(await generateSigner())
const PRODUCTION = { NODE_ENV: 'production', DOMAIN_API_PRIVATE_KEY: privateKey }
const issuesOf = (env: Record<string, string>) => {
  try {
    loadConfig(env)
    return []
  } catch (error) {
    if (error instanceof ConfigError) return error.issues
    throw error
  }
}

describe('configuration', () => {
  it('has safe defaults for governance', () => {
    expect(loadConfig({})).toMatchObject({
      VERIFICATION_QUORUM: '3',
      VERIFICATION_THRESHOLD: 0.6,
      VERIFICATION_PERIOD_SECONDS: 604_800,
      PORT: 3001
    })
  })

  it('takes the quorum as a count or as a share of the electorate', () => {
    expect(loadConfig({ VERIFICATION_QUORUM: '7' }).VERIFICATION_QUORUM).toBe('7')
    expect(loadConfig({ VERIFICATION_QUORUM: '40%' }).VERIFICATION_QUORUM).toBe('40%')
    expect(loadConfig({ VERIFICATION_QUORUM: '33.33%' }).VERIFICATION_QUORUM).toBe('33.33%')
    expect(loadConfig({ VERIFICATION_QUORUM: '100%' }).VERIFICATION_QUORUM).toBe('100%')
  })

  it('allows outside classes of did:ixo by default, of listed methods, or of none', () => {
    expect([...externalClassMethods(loadConfig({}))]).toEqual(['ixo'])
    expect([...externalClassMethods(loadConfig({ DOMAIN_EXTERNAL_CLASS_METHODS: 'ixo,web' }))]).toEqual(['ixo', 'web'])
    expect([...externalClassMethods(loadConfig({ DOMAIN_EXTERNAL_CLASS_METHODS: 'none' }))]).toEqual([])
    expect(() => loadConfig({ DOMAIN_EXTERNAL_CLASS_METHODS: 'ixo,,web' })).toThrow(ConfigError)
  })

  it('limits clients, failed authentications and API keys by default', () => {
    expect(loadConfig({})).toMatchObject({
      RATE_LIMIT_MAX: 3000,
      RATE_LIMIT_WINDOW_MS: 60_000,
      RATE_LIMIT_AUTH_FAILURES_MAX: 30,
      RATE_LIMIT_AUTH_FAILURES_WINDOW_MS: 300_000,
      RATE_LIMIT_PRINCIPAL_MAX: 1200,
      RATE_LIMIT_PRINCIPAL_WINDOW_MS: 60_000
    })
  })

  it('refuses a bootstrap admin key shorter than 32 characters, without echoing it', () => {
    const issues = issuesOf({ DOMAIN_API_ADMIN_KEY: 'short-admin-key' })
    expect(issues.join()).toContain('DOMAIN_API_ADMIN_KEY')
    expect(issues.join()).not.toContain('short-admin-key')
  })

  it('refuses a hand-made admin key in production but accepts a random one', () => {
    expect(issuesOf({ ...PRODUCTION, DOMAIN_API_ADMIN_KEY: 'a'.repeat(40) }).join()).toContain('too weak')
    const handMade = 'change-me-please-this-is-the-admin-key-0123'
    expect(issuesOf({ ...PRODUCTION, DOMAIN_API_ADMIN_KEY: handMade }).join()).toContain('too weak')
    expect(issuesOf({ ...PRODUCTION, DOMAIN_API_ADMIN_KEY: strongKey() })).toEqual([])
    expect(issuesOf({ NODE_ENV: 'development', DOMAIN_API_ADMIN_KEY: 'a'.repeat(40) })).toEqual([])
  })

  it.each([
    [{ VERIFICATION_QUORUM: '0' }, 'VERIFICATION_QUORUM'],
    [{ VERIFICATION_QUORUM: '0%' }, 'VERIFICATION_QUORUM'],
    [{ VERIFICATION_QUORUM: '101%' }, 'VERIFICATION_QUORUM'],
    [{ VERIFICATION_QUORUM: '2.5' }, 'VERIFICATION_QUORUM'],
    [{ VERIFICATION_QUORUM: 'most' }, 'VERIFICATION_QUORUM'],
    [{ VERIFICATION_THRESHOLD: '0' }, 'VERIFICATION_THRESHOLD'],
    [{ VERIFICATION_THRESHOLD: '1.5' }, 'VERIFICATION_THRESHOLD'],
    [{ VERIFICATION_PERIOD_SECONDS: 'soon' }, 'VERIFICATION_PERIOD_SECONDS'],
    [{ DOMAIN_API_ADMIN_ACCOUNT: 'admin' }, 'DOMAIN_API_ADMIN_ACCOUNT'],
    [{ RATE_LIMIT_MAX: '0' }, 'RATE_LIMIT_MAX'],
    [{ RATE_LIMIT_AUTH_FAILURES_WINDOW_MS: '10' }, 'RATE_LIMIT_AUTH_FAILURES_WINDOW_MS'],
    [{ RATE_LIMIT_PRINCIPAL_MAX: 'many' }, 'RATE_LIMIT_PRINCIPAL_MAX']
  ])('refuses %j', (env, name) => {
    expect(issuesOf(env).join()).toContain(name)
  })

  it('requires the registry\'s private key in production, naming it and never echoing a bad one', () => {
    expect(issuesOf({ NODE_ENV: 'production' }).join()).toContain('DOMAIN_API_PRIVATE_KEY is required in production')
    expect(issuesOf(PRODUCTION)).toEqual([])
    const bad = 'MgCZT5J0vYDmPWyZ2FS6bs9sJgBmx3fZF4hSuPnXmMbWXbw=='
    const issues = issuesOf({ DOMAIN_API_PRIVATE_KEY: bad }).join()
    expect(issues).toContain('DOMAIN_API_PRIVATE_KEY')
    expect(issues).not.toContain(bad)
  })
})

describe('development admin key', () => {
  it('is generated once into DATA_DIR (mode 0600) when none is configured in development', () => {
    const dir = mkdtempSync(join(tmpdir(), 'domain-api-'))
    try {
      const config = loadConfig({ NODE_ENV: 'development', DATA_DIR: dir })
      const first = resolveAdminKey(config)
      expect(first?.key).toMatch(/^dk_[A-Za-z0-9_-]{43}$/)
      expect(statSync(join(dir, 'admin-key')).mode & 0o777).toBe(0o600)
      expect(resolveAdminKey(config)?.key).toBe(first?.key)
      expect(resolveAdminKey(loadConfig({ ...PRODUCTION, DATA_DIR: dir }))).toBeUndefined()
      expect(resolveAdminKey(loadConfig({ NODE_ENV: 'test', DATA_DIR: dir }))).toBeUndefined()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
