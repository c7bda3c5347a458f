import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, posix } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { TObject } from '@sinclair/typebox'
import { baseConfigProperties } from '@impact/service-kit'
import { platform } from '../../scripts/platform.ts'
import { listFiles, readRepoFile, repoPath } from './paths.ts'

/** One deployable app as the repository defines it: its port, config schema and entry points. */
export interface AppInfo {
  name: string
  /** The port `npm start` gives it (scripts/platform.ts). */
  port: number
  schema: TObject
  loadConfig: (env: Record<string, string | undefined>) => Record<string, unknown>
  /** What `src/migrate.ts` loads: the app's `loadMigrationConfig` (serving-only rules relaxed), else `loadConfig`. */
  loadMigrationConfig: (env: Record<string, string | undefined>) => Record<string, unknown>
  /** Has `src/migrate.ts`, so a migration step must run it. */
  hasMigrate: boolean
}

/** The HTTP apps `npm start` runs (entries `apps/<name>/dist/server.js` with a probe): the four services. */
export function appNames (): string[] {
  return platform
    .filter((process) => process.probe !== undefined && /^apps\/[^/]+\/dist\/server\.js$/.test(process.entry))
    .map((process) => process.entry.split('/')[1] as string)
}

export async function loadApp (name: string): Promise<AppInfo> {
  const module = await import(pathToFileURL(repoPath('apps', name, 'src', 'config.ts')).href) as {
    ConfigSchema: TObject
    loadConfig: (env: Record<string, string | undefined>) => Record<string, unknown>
    loadMigrationConfig?: (env: Record<string, string | undefined>) => Record<string, unknown>
  }
  const entry = platform.find((process) => process.entry === `apps/${name}/dist/server.js`)
  if (entry === undefined) throw new Error(`${name} is not in scripts/platform.ts`)
  return {
    name,
    port: entry.port,
    schema: module.ConfigSchema,
    loadConfig: module.loadConfig,
    loadMigrationConfig: module.loadMigrationConfig ?? module.loadConfig,
    hasMigrate: existsSync(repoPath('apps', name, 'src', 'migrate.ts'))
  }
}

export const loadApps = async (): Promise<AppInfo[]> => await Promise.all(appNames().map(loadApp))

const BASE_KEYS = new Set(Object.keys(baseConfigProperties({ app: 'x', port: 0 })))

/** The platform's common keys, read through the service kit (createApp, runServer) or by the app itself. */
export const isBaseKey = (key: string): boolean => BASE_KEYS.has(key)

/**
 * The keys an app actually reads. Its own keys always count; a common key counts when the service kit
 * (which every app starts through) or the app's code outside config.ts names it. The chain gateway,
 * for one, has no database, so DATABASE_URL is in its schema but not read.
 */
export function readKeys (app: AppInfo): Set<string> {
  const configFiles = [`apps/${app.name}/src/config.ts`, 'libs/service-kit/src/config.ts']
  const sources = [...listFiles('libs/service-kit/src'), ...listFiles(`apps/${app.name}/src`)]
    .filter((file) => file.endsWith('.ts') && !configFiles.some((config) => file.endsWith(config)))
    // The kit's test support (outage drills) names variables for the processes it starts, not for the app.
    .filter((file) => !/libs\/service-kit\/src\/testing(\.ts|\/)/.test(file))
    .map((file) => readRepoFile(file))
    .join('\n')
  const named = (key: string) => new RegExp(`\\b${key}\\b`).test(sources)
  return new Set(Object.keys(app.schema.properties).filter((key) => !isBaseKey(key) || named(key)))
}

/** Keys the schema itself requires: neither optional nor defaulted. */
export function schemaRequiredKeys (app: AppInfo): string[] {
  const required = new Set(app.schema.required ?? [])
  return Object.entries(app.schema.properties)
    .filter(([key, schema]) => required.has(key) && (schema as { default?: unknown }).default === undefined)
    .map(([key]) => key)
}

/**
 * Keys without which this complete, valid environment fails the app's own validation (the schema's
 * required keys and the cross-field rules, e.g. "required in production").
 */
export function requiredIn (app: AppInfo, env: Record<string, string>): string[] {
  return Object.keys(env).filter((key) => {
    const without = { ...env }
    delete without[key]
    try {
      app.loadConfig(without)
      return false
    } catch {
      return true
    }
  })
}

/**
 * Values that look like credentials: they may come only from a Secret (k8s) or the secrets env file
 * (compose), never from a ConfigMap or a literal in a manifest.
 */
export const isSecretKey = (key: string): boolean =>
  /(^|_)(KEY|KEYS|TOKEN|SECRET|PASSWORD)$/.test(key) || key === 'DATABASE_URL' || key === 'REDIS_URL'

interface TsConfig { extends?: string, compilerOptions?: { rootDir?: string, outDir?: string } }

/** Where `tsc -p tsconfig.build.json` writes a source file of the app (path relative to the app folder). */
export function buildOutput (appName: string, source: string): string {
  let options: TsConfig['compilerOptions'] = {}
  let file = repoPath('apps', appName, 'tsconfig.build.json')
  const chain: Array<{ dir: string, options: NonNullable<TsConfig['compilerOptions']> }> = []
  for (;;) {
    const config = JSON.parse(readFileSync(file, 'utf8')) as TsConfig
    chain.unshift({ dir: dirname(file), options: config.compilerOptions ?? {} })
    if (config.extends === undefined) break
    file = join(dirname(file), config.extends)
  }
  let rootDir: string | undefined
  let outDir: string | undefined
  for (const level of chain) {
    options = level.options
    if (options.rootDir !== undefined) rootDir = join(level.dir, options.rootDir)
    if (options.outDir !== undefined) outDir = join(level.dir, options.outDir)
  }
  if (rootDir === undefined || outDir === undefined) {
    throw new Error(`apps/${appName}/tsconfig.build.json sets no rootDir/outDir`)
  }
  const appRoot = repoPath('apps', appName)
  const relativeToRoot = posix.relative(rootDir.replaceAll('\\', '/'), join(appRoot, source).replaceAll('\\', '/'))
  if (relativeToRoot.startsWith('..')) throw new Error(`${source} is outside rootDir of apps/${appName}`)
  return posix.relative(appRoot, posix.join(outDir, relativeToRoot.replace(/\.ts$/, '.js')))
}
