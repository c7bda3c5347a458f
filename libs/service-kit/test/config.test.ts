import { Type } from '@sinclair/typebox'
import { describe, expect, it } from 'vitest'
import { baseConfigProperties, ConfigError, loadConfig, parseOrigins, peerUrlProperties } from '../src/index.ts'

const Schema = Type.Object({
  ...baseConfigProperties({ app: 'demo', port: 3100 }),
  API_SECRET: Type.String({ minLength: 32 })
})

describe('loadConfig', () => {
  it('applies defaults and coerces numbers and booleans', () => {
    const config = loadConfig(Schema, { API_SECRET: 'x'.repeat(32), PORT: '4000', TRUST_PROXY_ENABLED: 'true' })
    expect(config).toMatchObject({
      PORT: 4000,
      TRUST_PROXY_ENABLED: true,
      NODE_ENV: 'development',
      HOST: '127.0.0.1',
      DATA_DIR: '.data/demo',
      LOG_LEVEL: 'info'
    })
  })

  it('names every bad variable in one error and never echoes the values', () => {
    const secret = 'short-secret-value'
    let caught: unknown
    try {
      loadConfig(Schema, { PORT: 'eighty', NODE_ENV: 'staging', API_SECRET: secret, DATABASE_URL: 'mysql://x' })
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(ConfigError)
    const { message, issues } = caught as ConfigError
    expect(issues).toHaveLength(4)
    expect(message).toMatch(/PORT/)
    expect(message).toMatch(/NODE_ENV must be one of: development, production, test/)
    expect(message).toMatch(/API_SECRET/)
    expect(message).toMatch(/DATABASE_URL/)
    expect(message).not.toContain(secret)
    expect(message).not.toContain('eighty')
  })

  it('reports a missing required variable by name', () => {
    expect(() => loadConfig(Schema, {})).toThrow(/API_SECRET/)
  })

  it('runs cross-field rules after the schema passes', () => {
    expect(() => loadConfig(Schema, { API_SECRET: 'x'.repeat(32), NODE_ENV: 'production' }, (c) =>
      c.NODE_ENV === 'production' && c.REDIS_URL === undefined ? ['REDIS_URL is required in production'] : []
    )).toThrow(/REDIS_URL is required in production/)
  })

  it('treats blank variables as unset', () => {
    expect(loadConfig(Schema, { API_SECRET: 'x'.repeat(32), PORT: '  ', DATABASE_URL: '' })).toMatchObject({
      PORT: 3100
    })
  })
})

describe('parseOrigins', () => {
  it('splits comma-separated origins', () => {
    expect(parseOrigins('*')).toBe('*')
    expect(parseOrigins('https://a.example')).toEqual(['https://a.example'])
    expect(parseOrigins('https://a.example, https://b.example')).toEqual(['https://a.example', 'https://b.example'])
    expect(parseOrigins(' , ')).toBeUndefined()
  })
})

describe('peerUrlProperties', () => {
  const Peers = Type.Object(peerUrlProperties(['DOMAIN_API_URL', 'ORACLE_URL']))

  it('takes optional http(s) base URLs of the apps named', () => {
    expect(loadConfig(Peers, {})).toEqual({})
    expect(loadConfig(Peers, { DOMAIN_API_URL: 'http://127.0.0.1:3001', ORACLE_URL: 'https://oracle.example.org' }))
      .toEqual({ DOMAIN_API_URL: 'http://127.0.0.1:3001', ORACLE_URL: 'https://oracle.example.org' })
    expect(Peers.properties.ORACLE_URL.description).toMatch(/oracle runtime/)
  })

  it('refuses what is not an http(s) URL', () => {
    expect(() => loadConfig(Peers, { DOMAIN_API_URL: 'http://exa mple:3001' })).toThrow(/DOMAIN_API_URL/)
    expect(() => loadConfig(Peers, { DOMAIN_API_URL: 'ftp://files.example.org' })).toThrow(/DOMAIN_API_URL/)
    expect(() => loadConfig(Peers, { ORACLE_URL: '127.0.0.1:3002' })).toThrow(/ORACLE_URL/)
  })
})
