import { describe, expect, it } from 'vitest'
import { ConfigError } from '@impact/service-kit'
import { freshIdentity } from '@impact/service-kit/testing'
import { loadConfig, simulatorEnabled } from '../src/config.ts'

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({})
    expect(config).toMatchObject({
      PORT: 3000,
      RATE_LIMIT_MAX: 100,
      RATE_LIMIT_PHONE_MAX: 30,
      RATE_LIMIT_WINDOW_MS: 60_000,
      USSD_SESSION_TTL_SECONDS: 180,
      TRUST_PROXY_ENABLED: false
    })
    expect(config).toMatchObject({
      PIN_LOCKOUT_BASE_SECONDS: 900,
      PIN_LOCKOUT_MAX_SECONDS: 86_400,
      PIN_CHECK_CONCURRENCY: 2,
      PIN_CHECK_QUEUE_MAX: 16
    })
    expect(simulatorEnabled(config)).toBe(true)
  })

  it('refuses to start in production without PIN_ENCRYPTION_KEY or USSD_PRIVATE_KEY, naming them', async () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(ConfigError)
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/PIN_ENCRYPTION_KEY is required in production/)
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/USSD_PRIVATE_KEY is required in production/)
    const production = {
      NODE_ENV: 'production',
      PIN_ENCRYPTION_KEY: 'd'.repeat(64),
      USSD_PRIVATE_KEY: (await freshIdentity()).key
    }
    expect(simulatorEnabled(loadConfig(production))).toBe(false)
    expect(simulatorEnabled(loadConfig({ ...production, SIMULATOR_ENABLED: 'true' }))).toBe(true)
  })

  it('refuses a USSD_PRIVATE_KEY that is no ucanto signer, without echoing it', () => {
    const attempt = () => loadConfig({ USSD_PRIVATE_KEY: 'MnotAsignerButSecret' })
    expect(attempt).toThrow(/USSD_PRIVATE_KEY: not an Ed25519 signer/)
    expect(() => attempt()).not.toThrow(/MnotAsignerButSecret/)
  })

  it('checks the accounts per phone', () => {
    expect(loadConfig({}).USSD_ACCOUNTS_PER_PHONE).toBe(1)
    expect(loadConfig({ USSD_ACCOUNTS_PER_PHONE: '3' }).USSD_ACCOUNTS_PER_PHONE).toBe(3)
    expect(() => loadConfig({ USSD_ACCOUNTS_PER_PHONE: '0' })).toThrow(/USSD_ACCOUNTS_PER_PHONE/)
  })

  it('refuses malformed keys without echoing them', () => {
    const attempt = () => loadConfig({ PIN_ENCRYPTION_KEY: 'not-a-key-secret-value' })
    expect(attempt).toThrow(/PIN_ENCRYPTION_KEY must be 32 bytes/)
    try {
      attempt()
    } catch (error) {
      expect(String(error)).not.toContain('not-a-key-secret-value')
    }
    expect(() => loadConfig({ PIN_ENCRYPTION_PREVIOUS_KEYS: 'old:nope' })).toThrow(/PIN_ENCRYPTION_PREVIOUS_KEYS/)
  })

  it('validates limits, service codes and the operator token', () => {
    expect(() => loadConfig({ RATE_LIMIT_MAX: '0' })).toThrow(/RATE_LIMIT_MAX/)
    expect(() => loadConfig({ USSD_SERVICE_CODES: '384#' })).toThrow(/USSD_SERVICE_CODES/)
    expect(() => loadConfig({ USSD_APP_NAME: 'Café <App>' }))
      .toThrow("USSD_APP_NAME: expected string to match '^[A-Za-z0-9 .&'-]+$'")
    expect(loadConfig({ USSD_SERVICE_CODES: '*384*123#, *500#' }).USSD_SERVICE_CODES).toBe('*384*123#, *500#')
    expect(() => loadConfig({ OPERATOR_TOKEN: 'short' })).toThrow(/OPERATOR_TOKEN/)
    expect(loadConfig({ TRUST_PROXY_ENABLED: 'true' }).TRUST_PROXY_ENABLED).toBe(true)
  })

  it('validates the lockout cool-downs and the PIN queue', () => {
    expect(() => loadConfig({ PIN_LOCKOUT_BASE_SECONDS: '0' })).toThrow(/PIN_LOCKOUT_BASE_SECONDS/)
    expect(() => loadConfig({ PIN_LOCKOUT_BASE_SECONDS: '3600', PIN_LOCKOUT_MAX_SECONDS: '600' }))
      .toThrow(/PIN_LOCKOUT_MAX_SECONDS must be at least PIN_LOCKOUT_BASE_SECONDS/)
    expect(() => loadConfig({ PIN_CHECK_CONCURRENCY: '0' })).toThrow(/PIN_CHECK_CONCURRENCY/)
    expect(() => loadConfig({ PIN_CHECK_QUEUE_MAX: '-1' })).toThrow(/PIN_CHECK_QUEUE_MAX/)
    expect(loadConfig({ PIN_CHECK_QUEUE_MAX: '0' }).PIN_CHECK_QUEUE_MAX).toBe(0)
  })
})
