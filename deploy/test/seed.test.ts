import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, readFile, writeFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { FastifyInstance } from 'fastify'
import { createTestDatabase, type TestDatabase } from '@impact/persistence/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseProgrammes } from '../../apps/ussd-gateway/src/services/programmes.ts'
import {
  DEV_SERVICE_CODE, prepareUssdProgrammes, seedAdminKey, SeedError, seedProgramme, type SeedOptions
} from '../../scripts/seed.ts'
import { loadApp } from '../src/apps.ts'
import { repoPath } from '../src/paths.ts'

const ADMIN_KEY = `admin_${randomBytes(24).toString('base64url')}`

/** A real domain-api on its own database, listening on a free loopback port. */
async function startDomainApi () {
  const database: TestDatabase = await createTestDatabase()
  const { loadConfig } = await loadApp('domain-api')
  const { buildApp } = await import(pathToFileURL(repoPath('apps', 'domain-api', 'src', 'app.ts')).href) as {
    buildApp: (config: unknown, options: { statePrefix: string }) => Promise<FastifyInstance>
  }
  const redis = process.env.REDIS_URL
  const app = await buildApp(loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DOMAIN_API_ADMIN_KEY: ADMIN_KEY,
    VERIFICATION_QUORUM: '3',
    VERIFICATION_SWEEP_INTERVAL_SECONDS: '0',
    // Other test files count 127.0.0.1 in the same Redis.
    RATE_LIMIT_MAX: '1000000',
    RATE_LIMIT_PRINCIPAL_MAX: '1000000',
    ...(redis !== undefined && redis !== '' ? { REDIS_URL: redis } : {}),
    ...database.env
  }), { statePrefix: `seed-test-${randomBytes(4).toString('hex')}:` })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('not listening on a port')
  const url = `http://127.0.0.1:${address.port}`
  const get = async (path: string) => {
    const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })
    expect(res.status, path).toBe(200)
    return await res.json() as Record<string, any>
  }
  return {
    url,
    get,
    domains: async () => (await get('/v1/domains?limit=100')).items as Array<Record<string, any>>,
    apiKeys: async () => (await get('/v1/api-keys?limit=100')).items as Array<Record<string, any>>,
    async close () {
      await app.close()
      await database.drop()
    }
  }
}

let dir: string
beforeAll(async () => { dir = await mkdtemp(join(tmpdir(), 'seed-test-')) })
afterAll(async () => { await rm(dir, { recursive: true, force: true }) })

describe('seedProgramme against a running domain-api', () => {
  let api: Awaited<ReturnType<typeof startDomainApi>>
  let options: SeedOptions
  const lines: string[] = []
  beforeAll(async () => {
    api = await startDomainApi()
    options = {
      domainApiUrl: api.url,
      adminKey: ADMIN_KEY,
      programmeFile: join(dir, 'first', 'programme.json'),
      log: (line) => lines.push(line)
    }
  }, 60_000)
  afterAll(async () => { await api?.close() })

  it('registers the organisation, the verified protocol and its project, and writes their DIDs', async () => {
    const { programme, created } = await seedProgramme(options)
    expect(created).toEqual(['organisation', 'protocol', 'verification', 'project'])
    expect(JSON.parse(await readFile(options.programmeFile, 'utf8'))).toEqual(programme)
    expect(programme.domainApiUrl).toBe(api.url)

    const protocol = await api.get(`/v1/domains/${programme.protocol}`)
    expect(protocol).toMatchObject({ type: 'protocol/project', status: 'verified', verified: true, usable: true })
    expect(protocol.links).toEqual({ organisation: programme.organisation })
    const proposal = await api.get(`/v1/verification-proposals/${protocol.verification.proposalId as string}`)
    expect(proposal).toMatchObject({
      status: 'passed', electorate: { source: 'council', size: 3 }, tally: { yes: 3, no: 0, abstain: 0, total: 3 }
    })
    expect(new Set(proposal.votes.map((vote: { account: string }) => vote.account)).size).toBe(3)

    const project = await api.get(`/v1/domains/${programme.project}`)
    expect(project)
      .toMatchObject({ type: 'project', class: programme.protocol, metadata: { name: 'Clean Cooking Project' } })
    expect(project.links).toEqual({ organisation: programme.organisation })
    expect(await api.get(`/v1/domains/${programme.organisation}`)).toMatchObject({ type: 'dao' })

    expect(lines).toHaveLength(4)
    for (const did of [programme.organisation, programme.protocol, programme.project]) {
      expect(lines.some((line) => line.includes(did))).toBe(true)
    }
    expect(lines.join('\n')).not.toMatch(/dk_|admin_/)
  })

  it('leaves no usable key behind: every key it issued is revoked', async () => {
    const keys = await api.apiKeys()
    expect(keys.length).toBeGreaterThan(0)
    for (const key of keys) expect(key.revokedAt, key.name).not.toBeNull()
  })

  it('creates nothing when run again, and finds the same programme', async () => {
    const before = { domains: await api.domains(), keys: await api.apiKeys() }
    const first = JSON.parse(await readFile(options.programmeFile, 'utf8'))
    const again = await seedProgramme(options)
    expect(again.created).toEqual([])
    expect(again.programme).toEqual(first)
    expect(await api.domains()).toEqual(before.domains)
    expect(await api.apiKeys()).toEqual(before.keys)
  })

  it('refuses production and writes nothing', async () => {
    const before = await api.domains()
    const file = join(dir, 'production', 'programme.json')
    await expect(seedProgramme({ ...options, programmeFile: file, nodeEnv: 'production' }))
      .rejects.toThrow(SeedError)
    expect(await api.domains()).toEqual(before)
    await expect(readFile(file)).rejects.toMatchObject({ code: 'ENOENT' })
  })
})

describe('seedProgramme after a run that stopped half-way', () => {
  let api: Awaited<ReturnType<typeof startDomainApi>>
  beforeAll(async () => { api = await startDomainApi() }, 60_000)
  afterAll(async () => { await api?.close() })

  it('finishes the open vote without registering or proposing anything twice', async () => {
    const options = { domainApiUrl: api.url, adminKey: ADMIN_KEY, programmeFile: join(dir, 'resumed.json') }
    let votes = 0
    const failingOnSecondVote: typeof fetch = async (input, init) => {
      if (String(input).endsWith('/votes') && ++votes === 2) throw new TypeError('fetch failed')
      return await fetch(input, init)
    }
    await expect(seedProgramme({ ...options, fetch: failingOnSecondVote })).rejects.toThrow('fetch failed')
    const [protocol] = (await api.domains()).filter((domain) => domain.type === 'protocol/project')
    expect(protocol).toMatchObject({ status: 'verification_submitted' })
    await expect(readFile(options.programmeFile)).rejects.toMatchObject({ code: 'ENOENT' })

    const { programme, created } = await seedProgramme(options)
    expect(created).toEqual(['verification', 'project'])
    expect(programme.protocol).toBe(protocol?.did)
    const domains = await api.domains()
    expect(domains.map((domain) => domain.type).sort()).toEqual(['dao', 'project', 'protocol/project'])
    const verified = await api.get(`/v1/domains/${programme.protocol}`)
    expect(verified).toMatchObject({ status: 'verified' })
    const proposal = await api.get(`/v1/verification-proposals/${verified.verification.proposalId as string}`)
    expect(proposal.id).toBe(protocol?.verification.proposalId)
    expect(proposal.tally).toMatchObject({ yes: 3, total: 3 })
    for (const key of await api.apiKeys()) expect(key.revokedAt).not.toBeNull()
  })
})

describe('the USSD programme file', () => {
  let api: Awaited<ReturnType<typeof startDomainApi>>
  beforeAll(async () => { api = await startDomainApi() }, 60_000)
  afterAll(async () => { await api?.close() })

  const programmeOf = async (file: string) => {
    const read = parseProgrammes(await readFile(file, 'utf8'), file)
    if (!read.ok) throw new Error(read.issues.join('\n'))
    return read.programmes.get(DEV_SERVICE_CODE)
  }

  it('exists before the gateway starts, and points at the seeded project once the seed ran', async () => {
    const ussdProgrammesFile = join(dir, 'ussd', 'ussd-programmes.json')
    const programmeFile = join(dir, 'ussd', 'programme.json')
    await prepareUssdProgrammes(ussdProgrammesFile, programmeFile)
    expect(await programmeOf(ussdProgrammesFile)).toMatchObject({ name: 'Clean Cooking', projectDid: undefined })
    const { programme } = await seedProgramme({
      domainApiUrl: api.url, adminKey: ADMIN_KEY, programmeFile, ussdProgrammesFile
    })
    const seeded = await programmeOf(ussdProgrammesFile)
    expect(seeded).toMatchObject({ projectDid: programme.project })
    expect(seeded?.menus.has('registerStove')).toBe(true)
    // A later start keeps the seeded file as it is until the seed runs again.
    await prepareUssdProgrammes(ussdProgrammesFile, programmeFile)
    expect(await programmeOf(ussdProgrammesFile)).toMatchObject({ projectDid: programme.project })
  })
})

describe('seedAdminKey', () => {
  it('takes DOMAIN_API_ADMIN_KEY, else the key domain-api generated into its data directory', async () => {
    const dataDir = join(dir, 'domain-api')
    await expect(seedAdminKey({}, dataDir)).rejects.toThrow(/DOMAIN_API_ADMIN_KEY/)
    await mkdir(dataDir, { recursive: true })
    await writeFile(join(dataDir, 'admin-key'), 'dk_generated\n', { mode: 0o600 })
    expect(await seedAdminKey({}, dataDir)).toBe('dk_generated')
    expect(await seedAdminKey({ DOMAIN_API_ADMIN_KEY: 'dk_configured' }, dataDir)).toBe('dk_configured')
  })
})
