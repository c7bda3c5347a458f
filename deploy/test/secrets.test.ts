import { execFile } from 'node:child_process'
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { parseSigner } from '@impact/ucan'
import { isSecretKey } from '../src/apps.ts'
import { containerEnvSources, mustFind, podSpecOf } from '../src/kubernetes.ts'
import { parseEnvFile } from '../src/kustomize.ts'
import { repoPath } from '../src/paths.ts'
import type { JsonObject } from '../src/yaml.ts'
import { generateOracleIdentity, generateSecrets } from '../../docker/generate-secrets.mjs'
import { apps, built, OVERLAYS } from './support.ts'

const run = promisify(execFile)
const script = repoPath('docker', 'generate-secrets.mjs')
const dirs: string[] = []
const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'impact-secrets-'))
  dirs.push(dir)
  return join(dir, 'out')
}
afterAll(async () => {
  await Promise.all(
    dirs.map(async (dir) => {
      await rm(dir, { recursive: true, force: true })
    })
  )
})

describe('docker/generate-secrets.mjs', () => {
  it('makes an oracle identity the runtime parses, with the DID it prints', () => {
    const identity = generateOracleIdentity()
    expect(identity.key).toMatch(/^M[A-Za-z0-9+/]+={0,2}$/)
    expect(parseSigner(identity.key).did()).toBe(identity.did)
    expect(generateOracleIdentity().key).not.toBe(identity.key)
  })

  it('gives each app only secrets its config defines, fresh on every run', () => {
    const first = generateSecrets()
    const second = generateSecrets()
    for (const app of apps) {
      const values = first[app.name]?.values ?? {}
      for (const key of Object.keys(values)) {
        expect(Object.keys(app.schema.properties), `${key} for ${app.name}`).toContain(key)
        expect(isSecretKey(key), key).toBe(true)
        if (!['DATABASE_URL', 'REDIS_URL'].includes(key)) expect(second[app.name]?.values[key]).not.toBe(values[key])
      }
    }
    expect(first.postgres?.values.POSTGRES_PASSWORD).toMatch(/^[0-9a-f]{48}$/)
    expect(first['domain-api']?.values.DATABASE_URL).toBe(
      `postgres://impact:${String(first.postgres?.values.POSTGRES_PASSWORD)}@postgres:5432/impact`
    )
  })

  it.each(OVERLAYS)('covers every Secret key the %s overlay requires', (overlay) => {
    const files = generateSecrets({ databaseUrl: 'postgres://u:p@db:5432/x', redisUrl: 'redis://r:6379' })
    for (const app of apps) {
      const container = (
        podSpecOf(mustFind(built[overlay], 'Deployment', app.name))?.containers as JsonObject[]
      )[0] as JsonObject
      for (const source of containerEnvSources(container, built[overlay]).values()) {
        if (source.kind === 'secret' && !source.optional) {
          expect(Object.keys(files[app.name]?.values ?? {}), `${source.name}/${source.key}`).toContain(source.key)
        }
      }
    }
  })

  it('writes one private env file per app, and never overwrites without --force', async () => {
    const dir = await tempDir()
    await run(process.execPath, [
      script,
      dir,
      '--database-url',
      'postgres://impact:pw@db.internal:5432/impact',
      '--redis-url',
      'rediss://cache:6380'
    ])
    const names = (await readdir(dir)).sort()
    expect(names).toEqual(apps.map((app) => `${app.name}.env`).sort())
    for (const name of names) {
      expect((await stat(join(dir, name))).mode & 0o777).toBe(0o600)
      const values = parseEnvFile(await readFile(join(dir, name), 'utf8'), name)
      if ('DATABASE_URL' in values) expect(values.DATABASE_URL).toBe('postgres://impact:pw@db.internal:5432/impact')
      if ('REDIS_URL' in values) expect(values.REDIS_URL).toBe('rediss://cache:6380')
    }
    const before = await readFile(join(dir, 'ussd-gateway.env'), 'utf8')
    await expect(run(process.execPath, [script, dir])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/refusing to overwrite/)
    })
    expect(await readFile(join(dir, 'ussd-gateway.env'), 'utf8')).toBe(before)
    await run(process.execPath, [script, dir, '--force'])
    expect(await readFile(join(dir, 'ussd-gateway.env'), 'utf8')).not.toBe(before)
    expect((await readdir(dir)).sort()).toContain('postgres.env')
  })
})
