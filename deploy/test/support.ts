import { loadApps, type AppInfo } from '../src/apps.ts'
import { imageConfig, parseDockerfile } from '../src/dockerfile.ts'
import { kustomizeBuild } from '../src/kustomize.ts'
import { readRepoFile, repoPath } from '../src/paths.ts'
import type { JsonObject } from '../src/yaml.ts'
import { generateSecrets } from '../../docker/generate-secrets.mjs'

export const apps: AppInfo[] = await loadApps()
export const OVERLAYS = ['dev', 'prod'] as const
export type Overlay = typeof OVERLAYS[number]

export const built: Record<Overlay, JsonObject[]> = {
  dev: kustomizeBuild(repoPath('k8s', 'overlays', 'dev')),
  prod: kustomizeBuild(repoPath('k8s', 'overlays', 'prod'))
}

export const dockerfile = parseDockerfile(readRepoFile('docker', 'Dockerfile'))

/** The runtime image configuration of an app, built the way compose and the README build it. */
export const runtimeImage = (app: AppInfo) =>
  imageConfig(dockerfile, 'runtime', { APP: app.name, PORT: String(app.port) })

/** Secrets as an operator would create them: the generator's files, with a managed database in k8s. */
export const k8sSecrets = generateSecrets({
  databaseUrl: 'postgres://impact:pw@db.internal:5432/impact',
  redisUrl: 'rediss://cache.internal:6380'
})

/** The value of `<app>-secrets` key `key` (undefined: the operator did not create it). */
export function k8sSecretValue (secret: string, key: string): string | undefined {
  const app = secret.replace(/-secrets$/, '')
  return k8sSecrets[app]?.values[key]
}

export const byName = (name: string): AppInfo => {
  const app = apps.find((candidate) => candidate.name === name)
  if (app === undefined) throw new Error(`no app ${name}`)
  return app
}
