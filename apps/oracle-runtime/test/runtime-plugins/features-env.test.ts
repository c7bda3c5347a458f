import { afterEach, describe, expect, it } from 'vitest'
import { ConfigError } from '@impact/service-kit'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { createHarness, testPlugin, type Harness } from '../support/harness.ts'

const ADMIN = 'operator-token-0123456789'
const custom = testPlugin({
  name: 'custom',
  description: 'Test plugin of a custom entry file, off by default',
  setup: () => ({ async routes (app) { app.get('/custom/ping', async () => ({ pong: true })) } })
}, { defaultEnabled: false })

const opened: Harness[] = []
afterEach(async () => { for (const h of opened.splice(0)) await h.close() })
const harness = async (...args: Parameters<typeof createHarness>) => {
  const h = await createHarness(...args)
  opened.push(h)
  return h
}
const decision = (h: Harness, name: string) => h.runtime.pluginDecisions.find((d) => d.name === name)
const get = async (h: Harness, url: string) =>
  await h.app.inject({ method: 'GET', url, headers: (await h.user()).headers })

// Apps are built inside these tests: a loaded machine needs more than the default 5 s for one.
describe('ORACLE_FEATURES', { timeout: 20_000 }, () => {
  it('turns plugins on and off from the environment', async () => {
    const h = await harness({ ORACLE_FEATURES: 'credits, -user-preferences', CREDITS_ADMIN_TOKEN: ADMIN })
    expect(decision(h, 'credits')).toEqual({ name: 'credits', enabled: true, reason: 'enabled by features' })
    expect(decision(h, 'user-preferences'))
      .toEqual({ name: 'user-preferences', enabled: false, reason: 'disabled by features' })
    expect((await get(h, '/credits')).statusCode).toBe(200)
    expect((await get(h, '/user-preferences')).statusCode).toBe(404)
  })

  it('reaches plugins of a custom entry file, and the app option features wins over it', async () => {
    const h = await harness(
      { ORACLE_FEATURES: '+custom,-user-preferences' },
      { plugins: [custom], features: { 'user-preferences': true } }
    )
    expect((await get(h, '/custom/ping')).json()).toEqual({ pong: true })
    expect(decision(h, 'user-preferences')?.enabled).toBe(true)
  })

  it('refuses an unknown plugin name at start, naming the variable and the known plugins', async () => {
    // Refused before anything is opened, so no database is made for these.
    const build = async (features: string) =>
      await buildApp(loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: 'memory://', ORACLE_FEATURES: features }))
    await expect(build('credits,billing')).rejects.toThrow(ConfigError)
    await expect(build('billing'))
      .rejects.toThrow('ORACLE_FEATURES: unknown plugin billing (known: user-preferences, credits, mcp, platform)')
  })

  it('refuses a malformed or contradictory list when the configuration is read', () => {
    expect(() => loadConfig({ ORACLE_FEATURES: 'credits;user-preferences' })).toThrow(/ORACLE_FEATURES/)
    expect(() => loadConfig({ ORACLE_FEATURES: 'credits,,-credits' })).toThrow(/ORACLE_FEATURES/)
    expect(() => loadConfig({ ORACLE_FEATURES: 'credits,-credits' })).toThrow('ORACLE_FEATURES names credits twice')
  })
})
