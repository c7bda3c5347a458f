import { describe, expect, it } from 'vitest'
import {
  enabledProcesses, platform, processEnv, programmeFile, seedSkipReason, type PlatformProcess
} from '../../scripts/platform.ts'
import { parseProgrammes } from '../../apps/ussd-gateway/src/services/programmes.ts'
import { DEV_SERVICE_CODE, ussdProgrammes } from '../../scripts/seed.ts'
import { loadApp } from '../src/apps.ts'

const URL_KEYS = ['DOMAIN_API_URL', 'ORACLE_URL', 'CHAIN_REST_URL']
const byName = (name: string) => platform.find((proc) => proc.name === name) as PlatformProcess
const urlsOf = (env: NodeJS.ProcessEnv) => Object.fromEntries(URL_KEYS.filter((key) => key in env).map((key) =>
  [key, env[key]]))

describe('npm start hands each process', () => {
  it('the base URLs of the other apps, from the ports and host it chose', () => {
    const env = { HOST: '0.0.0.0', DOMAIN_API_PORT: '4001', CHAIN_REST_GATEWAY_PORT: '4003' }
    const others = {
      DOMAIN_API_URL: 'http://127.0.0.1:4001',
      ORACLE_URL: 'http://127.0.0.1:3002',
      CHAIN_REST_URL: 'http://127.0.0.1:4003'
    }
    expect(urlsOf(processEnv(byName('ussd-gateway'), env))).toEqual(others)
    expect(urlsOf(processEnv(byName('domain-api'), env)))
      .toEqual({ ORACLE_URL: others.ORACLE_URL, CHAIN_REST_URL: others.CHAIN_REST_URL })
    expect(urlsOf(processEnv(byName('oracle-runtime'), env)))
      .toEqual({ DOMAIN_API_URL: others.DOMAIN_API_URL, CHAIN_REST_URL: others.CHAIN_REST_URL })
    expect(urlsOf(processEnv(byName('chain-rest-gateway'), env)))
      .toEqual({ DOMAIN_API_URL: others.DOMAIN_API_URL, ORACLE_URL: others.ORACLE_URL })
    expect(urlsOf(processEnv(byName('chain-dev-node'), env))).toEqual({})
  })

  it('URLs on the host the apps bind, an IPv6 one in brackets', () => {
    expect(processEnv(byName('ussd-gateway'), { HOST: '10.1.2.3' }).ORACLE_URL).toBe('http://10.1.2.3:3002')
    expect(processEnv(byName('ussd-gateway'), { HOST: '::1' }).ORACLE_URL).toBe('http://[::1]:3002')
    expect(processEnv(byName('ussd-gateway'), {}).ORACLE_URL).toBe('http://127.0.0.1:3002')
  })

  it('only URL keys its config schema defines, accepted by its loadConfig', async () => {
    for (const proc of enabledProcesses({}).filter((p) => p.fixture !== true)) {
      const app = await loadApp(proc.name)
      const urls = urlsOf(processEnv(proc, { HOST: '0.0.0.0' }))
      expect(Object.keys(urls).length, proc.name).toBeGreaterThan(0)
      for (const key of Object.keys(urls)) expect(Object.keys(app.schema.properties), proc.name).toContain(key)
      expect(app.loadConfig({ NODE_ENV: 'test', ...urls })).toMatchObject(urls)
      expect(() => app.loadConfig({ NODE_ENV: 'test', [Object.keys(urls)[0] as string]: 'not a url' }))
        .toThrow(/_URL/)
    }
  })

  it('its own port and a data directory of its own under the platform\'s, identity keys passed through', () => {
    const env = { PORT: '9999', DATA_DIR: '/srv/impact', ORACLE_PRIVATE_KEY: 'Mgsecret', ORACLE_RUNTIME_PORT: '5002' }
    const oracle = processEnv(byName('oracle-runtime'), env)
    expect(oracle)
      .toMatchObject({ PORT: '5002', DATA_DIR: '/srv/impact/oracle-runtime', ORACLE_PRIVATE_KEY: 'Mgsecret' })
    expect(processEnv(byName('domain-api'), env)).toMatchObject({ PORT: '3001', DATA_DIR: '/srv/impact/domain-api' })
    expect(processEnv(byName('domain-api'), {}).DATA_DIR).toBe('.data/domain-api')
    expect(processEnv(byName('domain-api'), { DATA_DIR: 'memory://' }).DATA_DIR).toBe('memory://')
    expect(programmeFile(env)).toBe('/srv/impact/programme.json')
  })

  it('the chain gateway its upstream: the development node, or the real node named', () => {
    expect(processEnv(byName('chain-rest-gateway'), { CHAIN_DEV_NODE_PORT: '9200' }).CHAIN_GRPC_URL)
      .toBe('127.0.0.1:9200')
    const real = { CHAIN_GRPC_URL: 'grpcs://grpc.example.org:443' }
    expect(processEnv(byName('chain-rest-gateway'), real).CHAIN_GRPC_URL).toBe(real.CHAIN_GRPC_URL)
    expect(enabledProcesses(real).map((p) => p.name)).not.toContain('chain-dev-node')
  })
})

describe('the development seed of npm start', () => {
  it('hands the USSD gateway the seed\'s programme file, unless it names its own or nothing is seeded', () => {
    const gateway = byName('ussd-gateway')
    expect(processEnv(gateway, { DATA_DIR: '/srv/impact' }).USSD_PROGRAMMES_FILE)
      .toBe('/srv/impact/ussd-programmes.json')
    expect(processEnv(gateway, { USSD_PROGRAMMES_FILE: '/etc/ussd.yaml' }).USSD_PROGRAMMES_FILE).toBe('/etc/ussd.yaml')
    expect(processEnv(gateway, { SEED: 'false' }).USSD_PROGRAMMES_FILE).toBeUndefined()
    expect(processEnv(gateway, { NODE_ENV: 'production' }).USSD_PROGRAMMES_FILE).toBeUndefined()
    expect(processEnv(byName('domain-api'), {}).USSD_PROGRAMMES_FILE).toBeUndefined()
  })

  it('writes a programme file the gateway accepts, with the stove menus once there is a project', () => {
    const project = 'did:ixo:entity:5d8a2c9f0b7e41a3b6c2d9e8f7a6b5c4'
    const read = parseProgrammes(JSON.stringify(ussdProgrammes({ project })), 'ussd-programmes.json')
    if (!read.ok) throw new Error(read.issues.join('\n'))
    const programme = read.programmes.get(DEV_SERVICE_CODE)
    expect(programme).toMatchObject({ name: 'Clean Cooking', projectDid: project })
    expect([...programme!.menus]).toEqual(['myDomains', 'askAssistant', 'registerStove', 'checkStove'])
    const before = parseProgrammes(JSON.stringify(ussdProgrammes()), 'ussd-programmes.json')
    expect(before.ok && [...before.programmes.get(DEV_SERVICE_CODE)!.menus]).not.toContain('registerStove')
  })

  it('runs in development only, unless SEED=false or the platform keeps its data in memory', () => {
    expect(seedSkipReason({})).toBeUndefined()
    expect(seedSkipReason({ NODE_ENV: 'development', SEED: 'true' })).toBeUndefined()
    expect(seedSkipReason({ NODE_ENV: 'production' })).toBe('NODE_ENV=production')
    expect(seedSkipReason({ NODE_ENV: 'test' })).toBe('NODE_ENV=test')
    expect(seedSkipReason({ SEED: 'false' })).toBe('SEED=false')
    expect(seedSkipReason({ DATA_DIR: 'memory://' })).toMatch(/in memory/)
  })
})
