import { containersOf, nameOf, podSpecOf } from './kustomize.ts'
import { isObject, type JsonObject } from './yaml.ts'

export { containersOf, nameOf, podSpecOf }

export const ofKind = (resources: JsonObject[], kind: string): JsonObject[] =>
  resources.filter((resource) => resource.kind === kind)

export function find (resources: JsonObject[], kind: string, name: string): JsonObject | undefined {
  return resources.find((resource) => resource.kind === kind && nameOf(resource) === name)
}

export function mustFind (resources: JsonObject[], kind: string, name: string): JsonObject {
  const found = find(resources, kind, name)
  if (found === undefined) throw new Error(`no ${kind} ${name}`)
  return found
}

export const labelsOf = (object: JsonObject): Record<string, string> =>
  ((isObject(object.metadata) ? object.metadata.labels : undefined) as Record<string, string> | undefined) ?? {}

/** Labels of the pods a workload creates. */
export function podLabels (workload: JsonObject): Record<string, string> {
  const spec = workload.spec as JsonObject
  const template = spec.template as JsonObject
  return labelsOf(template)
}

/** Whether a label selector (matchLabels and matchExpressions, or a Service's plain map) selects these labels. */
export function selects (selector: JsonObject | undefined, labels: Record<string, string>): boolean {
  if (selector === undefined) return false
  const matchLabels =
    isObject(selector.matchLabels) || isObject(selector.matchExpressions) || Array.isArray(selector.matchExpressions)
      ? ((selector.matchLabels as Record<string, string> | undefined) ?? {})
      : (selector as Record<string, string>)
  for (const [key, value] of Object.entries(matchLabels)) if (labels[key] !== value) return false
  for (const expression of selector.matchExpressions as JsonObject[] | undefined ?? []) {
    const key = String(expression.key)
    const values = expression.values as string[] | undefined ?? []
    const has = key in labels
    if (expression.operator === 'In' && !(has && values.includes(labels[key] as string))) return false
    if (expression.operator === 'NotIn' && has && values.includes(labels[key] as string)) return false
    if (expression.operator === 'Exists' && !has) return false
    if (expression.operator === 'DoesNotExist' && has) return false
  }
  return true
}

/** Where one environment variable of a container comes from. */
export type EnvSource =
  | { kind: 'configMap', name: string, key: string, value: string }
  | { kind: 'secret', name: string, key: string, optional: boolean }
  | { kind: 'literal', value: string }

/**
 * A container's environment as Kubernetes assembles it: envFrom sources in order (a later one wins),
 * then env (wins over envFrom). ConfigMaps must be among the resources (they are generated); Secrets
 * are created by the operator, so their values come from `secretValue`.
 */
export function containerEnvSources (container: JsonObject, resources: JsonObject[]): Map<string, EnvSource> {
  const sources = new Map<string, EnvSource>()
  const configMapData = (name: string): Record<string, string> => {
    const configMap = find(resources, 'ConfigMap', name)
    if (configMap === undefined) {
      throw new Error(`container ${String(container.name)}: ConfigMap ${name} is not among the resources`)
    }
    return (configMap.data as Record<string, string> | undefined) ?? {}
  }
  for (const source of container.envFrom as JsonObject[] | undefined ?? []) {
    if (isObject(source.configMapRef)) {
      const name = String(source.configMapRef.name)
      for (const [key, value] of Object.entries(configMapData(name))) {
        sources.set(key, { kind: 'configMap', name, key, value })
      }
    } else {
      throw new Error(
        `container ${String(container.name)}: envFrom other than configMapRef cannot be checked ` +
          '(name secret keys one by one)'
      )
    }
  }
  for (const variable of container.env as JsonObject[] | undefined ?? []) {
    const name = String(variable.name)
    if (typeof variable.value === 'string') sources.set(name, { kind: 'literal', value: variable.value })
    else if (isObject(variable.valueFrom) && isObject(variable.valueFrom.configMapKeyRef)) {
      const ref = variable.valueFrom.configMapKeyRef
      const data = configMapData(String(ref.name))
      if (!(String(ref.key) in data)) {
        throw new Error(`${name}: ConfigMap ${String(ref.name)} has no key ${String(ref.key)}`)
      }
      sources.set(name, {
        kind: 'configMap',
        name: String(ref.name),
        key: String(ref.key),
        value: data[String(ref.key)] as string
      })
    } else if (isObject(variable.valueFrom) && isObject(variable.valueFrom.secretKeyRef)) {
      const ref = variable.valueFrom.secretKeyRef
      sources.set(name, {
        kind: 'secret',
        name: String(ref.name),
        key: String(ref.key),
        optional: ref.optional === true
      })
    } else {
      throw new Error(`${name}: unsupported env source`)
    }
  }
  return sources
}

/** The environment values, with Secret values supplied by the caller (undefined: the key is absent). */
export function resolveEnv (
  sources: Map<string, EnvSource>,
  secretValue: (secret: string, key: string) => string | undefined,
  base: Record<string, string> = {}
): Record<string, string> {
  const env = { ...base }
  for (const [name, source] of sources) {
    if (source.kind === 'secret') {
      const value = secretValue(source.name, source.key)
      if (value !== undefined) env[name] = value
      else if (!source.optional) {
        throw new Error(`${name}: Secret ${source.name} lacks key ${source.key} and the reference is not optional`)
      }
    } else {
      env[name] = source.value
    }
  }
  return env
}

/** Name and tag of an image reference: `registry.example.org/impact/domain-api:0.1.0` → impact/domain-api. */
export function imageRepository (image: string): string {
  const withoutDigest = image.split('@')[0] as string
  const tagAt = withoutDigest.lastIndexOf(':') > withoutDigest.lastIndexOf('/') ? withoutDigest.lastIndexOf(':') : -1
  return tagAt === -1 ? withoutDigest : withoutDigest.slice(0, tagAt)
}

/** Parses a container's port reference (a number or the name of a container port). */
export function containerPortNumber (container: JsonObject, port: string | number): number | undefined {
  if (typeof port === 'number') return port
  const found = (container.ports as JsonObject[] | undefined ?? []).find((candidate) => candidate.name === port)
  return found === undefined ? undefined : Number(found.containerPort)
}
