import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../../src/config.ts'
import { BUILTIN_PLUGINS, resolvePlugins } from '../../../src/runtime-plugins/index.ts'
import { asSelf, authorisedUser, platformWorld, PROTOCOL, world } from './world.ts'

platformWorld({ withModel: true, offline: true })

describe('platform plugin switch', () => {
  const decision = (env: Record<string, string>, features: Record<string, boolean> = {}) =>
    resolvePlugins(BUILTIN_PLUGINS, features, loadConfig(env)).decisions.find((d) => d.name === 'platform')

  it('is on by default with DOMAIN_API_URL, off without it, and features can turn it off', () => {
    expect(world.withModel.h.runtime.pluginDecisions).toContainEqual(
      { name: 'platform', enabled: true, reason: 'on by default' })
    expect(decision({})).toEqual({ name: 'platform', enabled: false, reason: 'missing DOMAIN_API_URL' })
    expect(decision({ DOMAIN_API_URL: world.registry.url }, { platform: false }))
      .toEqual({ name: 'platform', enabled: false, reason: 'disabled by features' })
    expect(() => resolvePlugins(BUILTIN_PLUGINS, { platform: true }, loadConfig({})))
      .toThrow('plugin platform is enabled but DOMAIN_API_URL is not set')
  })

  it('refuses settings that need a URL which is not set', () => {
    expect(() => loadConfig({ DOMAIN_API_DID: world.registry.did }))
      .toThrow('DOMAIN_API_DID is set but DOMAIN_API_URL is not')
    expect(() => loadConfig({ CHAIN_REST_API_KEY: 'k' })).toThrow('CHAIN_REST_API_KEY is set but CHAIN_REST_URL is not')
    expect(() => loadConfig({ DOMAIN_API_URL: world.registry.url, PLATFORM_DEFAULT_PROTOCOL: 'stove' }))
      .toThrow(/PLATFORM_DEFAULT_PROTOCOL/)
  })
})

// A file's first registration warms up three services end to end.
describe('the plugin guide\'s example', { timeout: 20_000 }, () => {
  it('is this working tool, in under 40 lines', async () => {
    const example = await readFile(new URL('../../support/stove-status-plugin.ts', import.meta.url), 'utf8')
    const guide = await readFile(new URL('../../../docs/plugins.md', import.meta.url), 'utf8')
    expect(guide).toContain(example)
    expect(example.trim().split('\n').length).toBeLessThan(40)
  })

  it('reads a domain as the user, and tells the model when the user has not authorised the oracle', async () => {
    const { user } = await authorisedUser(world.offline)
    const domain = await asSelf(user).registerDomain({ type: 'Device', class: PROTOCOL, metadata: { name: 'R' } })
    const sessionId = await world.offline.h.newSession(user.headers)
    const res = await world.offline.h.send(user.headers, sessionId, `stove_status ${domain.did}`)
    const [call] = (await world.offline.h.transcript(user.headers, res.json().sessionId)).at(-1).toolCalls
    expect(JSON.parse(call.output)).toEqual({
      did: domain.did, status: 'draft', verified: false, usable: false, yours: true
    })
    const stranger = await world.offline.h.user()
    const other = await world.offline.h.send(stranger.headers, await world.offline.h.newSession(stranger.headers),
      `stove_status ${domain.did}`)
    const [refused] = (await world.offline.h.transcript(stranger.headers, other.json().sessionId)).at(-1).toolCalls
    expect(refused.status).toBe('error')
    expect(JSON.parse(refused.output)).toMatchObject({ error: 'AUTHORISATION_REQUIRED' })
  })
})
