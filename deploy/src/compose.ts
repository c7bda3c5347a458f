import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { parseEnvFile } from './kustomize.ts'
import { isObject, parseYaml, type Json, type JsonObject } from './yaml.ts'

/** Compose variable interpolation: `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?error}`, `$$`. */
export function interpolate (value: Json, env: Record<string, string>): Json {
  if (typeof value === 'string') {
    return value.replace(
      /\$\$|\$\{(\w+)(?:(:?[-?])([^}]*))?\}|\$(\w+)/g,
      (
        match,
        name: string | undefined,
        operator: string | undefined,
        argument: string | undefined,
        bare: string | undefined
      ) => {
        if (match === '$$') return '$'
        const key = (name ?? bare) as string
        const set = env[key]
        const empty = set === undefined || (operator?.startsWith(':') === true && set === '')
        if (operator?.endsWith('-') === true) return empty ? (argument ?? '') : (set as string)
        if (operator?.endsWith('?') === true) {
          if (empty) throw new Error(`compose: ${key} is required: ${argument ?? ''}`)
          return set as string
        }
        return set ?? ''
      }
    )
  }
  if (Array.isArray(value)) return value.map((item) => interpolate(item, env))
  if (isObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolate(item, env)]))
  }
  return value
}

export interface ComposeProject {
  file: string
  /** The file as written (after YAML merge keys), for schema validation. */
  raw: JsonObject
  /** After interpolation with the given environment. */
  config: JsonObject
  services: Record<string, JsonObject>
}

export function loadCompose (file: string, env: Record<string, string> = {}): ComposeProject {
  const raw = parseYaml(readFileSync(file, 'utf8'), file)
  const config = interpolate(raw, env) as JsonObject
  return { file, raw, config, services: config.services as Record<string, JsonObject> }
}

/** `environment` as a map, from either of its two spellings. */
export function serviceEnvironment (service: JsonObject): Record<string, string> {
  const environment = service.environment
  if (Array.isArray(environment)) {
    return Object.fromEntries(environment.map((entry) => {
      const text = String(entry)
      const at = text.indexOf('=')
      return at === -1 ? [text, ''] : [text.slice(0, at), text.slice(at + 1)]
    }))
  }
  if (isObject(environment)) {
    return Object.fromEntries(
      Object.entries(environment).map(([key, value]) => [key, value === null ? '' : String(value)])
    )
  }
  return {}
}

export const envFiles = (service: JsonObject): string[] =>
  service.env_file === undefined
    ? []
    : Array.isArray(service.env_file)
      ? service.env_file.map(String)
      : [String(service.env_file)]

/**
 * The environment a service's container starts with: the image's ENV, then env_file entries, then
 * `environment` (compose's precedence). `readEnvFile` maps an env_file path (relative to the compose
 * file) to its content, so tests can supply generated secrets.
 */
export function containerEnvironment (
  project: ComposeProject,
  serviceName: string,
  imageEnv: Record<string, string>,
  readEnvFile: (path: string) => string = (path) => readFileSync(join(dirname(project.file), path), 'utf8')
): Record<string, string> {
  const service = project.services[serviceName]
  if (service === undefined) throw new Error(`compose has no service ${serviceName}`)
  const env = { ...imageEnv }
  for (const file of envFiles(service)) Object.assign(env, parseEnvFile(readEnvFile(file), file))
  return { ...env, ...serviceEnvironment(service) }
}

/** `depends_on` as a map of service → condition. */
export function dependsOn (service: JsonObject): Record<string, string> {
  const dependencies = service.depends_on
  if (Array.isArray(dependencies)) {
    return Object.fromEntries(dependencies.map((name) => [String(name), 'service_started']))
  }
  if (isObject(dependencies)) {
    return Object.fromEntries(
      Object.entries(dependencies).map(([name, value]) => [
        name,
        String((value as JsonObject).condition ?? 'service_started')
      ])
    )
  }
  return {}
}

/** Compose durations (`20s`, `1m30s`, `500ms`) in milliseconds. */
export function durationMs (text: string): number {
  let total = 0
  for (const [, amount, unit] of text.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s|us)/g)) {
    const factor = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001 }[unit as 'h' | 'm' | 's' | 'ms' | 'us']
    total += Number(amount) * factor
  }
  return total
}
