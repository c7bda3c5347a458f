import { createHash } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'
import { applyJsonPatch, strategicMerge, type JsonPatchOperation } from './patch.ts'
import { isObject, parseYaml, parseYamlDocuments, type Json, type JsonObject } from './yaml.ts'

/**
 * `kustomize build` for the features this repository's kustomizations use: resources (files and
 * kustomization folders), namespace, images, configMapGenerator (envs, literals, behavior
 * create/merge/replace, content-hash name suffix and the references to it) and patches (strategic
 * merge from a file or inline, RFC 6902 with a kind/name target). Any other field fails the build, so
 * a kustomization never silently means more than what is checked. No kustomize npm package exists; where
 * kubectl is installed the tests compare this output with `kubectl kustomize`.
 */
const SUPPORTED = new Set(['apiVersion', 'kind', 'resources', 'namespace', 'images', 'configMapGenerator', 'patches'])

interface Item { object: JsonObject, generated?: boolean }

interface PatchTarget { kind?: string, name?: string }

const CLUSTER_SCOPED = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'PersistentVolume',
  'StorageClass',
  'PriorityClass',
  'IngressClass'
])

const metadataOf = (object: JsonObject): JsonObject => {
  if (!isObject(object.metadata)) object.metadata = {}
  return object.metadata as JsonObject
}
export const nameOf = (object: JsonObject): string => String(metadataOf(object).name ?? '')

/** kustomize's env-file rules: `KEY=value` (value verbatim), `#` comments, blank lines. */
export function parseEnvFile (text: string, source: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [index, raw] of text.replace(/^\uFEFF/, '').split(/\r?\n/).entries()) {
    const line = raw.trimStart()
    if (line === '' || line.startsWith('#')) continue
    const at = line.indexOf('=')
    // kustomize would read a bare KEY from its own environment: not reproducible, so refused here.
    if (at === -1) throw new Error(`${source}:${index + 1}: expected KEY=value`)
    const key = line.slice(0, at)
    if (!/^[-._a-zA-Z][-._a-zA-Z0-9]*$/.test(key)) throw new Error(`${source}:${index + 1}: bad variable name ${key}`)
    out[key] = line.slice(at + 1)
  }
  return out
}

function parseLiteral (literal: string): [string, string] {
  const at = literal.indexOf('=')
  if (at < 1) throw new Error(`configMapGenerator literal without a key: ${literal}`)
  let value = literal.slice(at + 1)
  if (value.length >= 2 && (value[0] === '"' || value[0] === '\'') && value.at(-1) === value[0]) {
    value = value.slice(1, -1)
  }
  return [literal.slice(0, at), value]
}

/** Go's encoding/json over a map: sorted keys, and <, >, &, U+2028, U+2029 escaped. */
function goJson (value: Json): string {
  const sorted = (v: Json): Json =>
    isObject(v)
      ? Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, sorted(v[k] as Json)])
      )
      : Array.isArray(v)
        ? v.map(sorted)
        : v
  return JSON.stringify(sorted(value))
    .replaceAll('<', '\\u003c').replaceAll('>', '\\u003e').replaceAll('&', '\\u0026')
    .replaceAll('\u2028', '\\u2028').replaceAll('\u2029', '\\u2029')
}

/**
 * The 10-character suffix kustomize appends to a generated ConfigMap's name: sha256 of the Go JSON of
 * `{ data, kind, name }`. kustomize's hasher looks the name up with the single key "metadata/name", which
 * finds nothing, so the name it hashes is always "" (observed with kustomize 5.5); this does the same.
 */
export function configMapHash (data: Record<string, string>): string {
  const hex = createHash('sha256').update(goJson({ data, kind: 'ConfigMap', name: '' })).digest('hex')
  const swap: Record<string, string> = { 0: 'g', 1: 'h', 3: 'k', a: 'm', e: 't' }
  return [...hex.slice(0, 10)].map((c) => swap[c] ?? c).join('')
}

/** The pod spec inside a workload, if the object has one. */
export function podSpecOf (object: JsonObject): JsonObject | undefined {
  const spec = object.spec
  if (!isObject(spec)) return undefined
  if (object.kind === 'Pod') return spec
  const template =
    object.kind === 'CronJob' && isObject(spec.jobTemplate) && isObject(spec.jobTemplate.spec)
      ? spec.jobTemplate.spec.template
      : spec.template
  return isObject(template) && isObject(template.spec) ? template.spec : undefined
}

export function containersOf (object: JsonObject): JsonObject[] {
  const pod = podSpecOf(object)
  if (pod === undefined) return []
  return [
    ...((pod.initContainers as JsonObject[] | undefined) ?? []),
    ...((pod.containers as JsonObject[] | undefined) ?? [])
  ]
}

function matches (object: JsonObject, target: PatchTarget): boolean {
  if (target.kind !== undefined && object.kind !== target.kind) return false
  if (target.name !== undefined && !new RegExp(`^(?:${target.name})$`).test(nameOf(object))) return false
  return true
}

function applyImages (items: Item[], images: JsonObject[]): void {
  for (const item of items) {
    for (const container of containersOf(item.object)) {
      const image = String(container.image)
      const digestAt = image.indexOf('@')
      const base = digestAt === -1 ? image : image.slice(0, digestAt)
      const tagAt = base.lastIndexOf(':') > base.lastIndexOf('/') ? base.lastIndexOf(':') : -1
      const name = tagAt === -1 ? base : base.slice(0, tagAt)
      const rule = images.find((candidate) => candidate.name === name)
      if (rule === undefined) continue
      const tag = tagAt === -1 ? '' : base.slice(tagAt)
      const newName = typeof rule.newName === 'string' ? rule.newName : name
      if (typeof rule.digest === 'string') container.image = `${newName}@${rule.digest}`
      else {
        const newTag = rule.newTag !== undefined ? `:${String(rule.newTag)}` : tag
        container.image = `${newName}${newTag}${digestAt === -1 ? '' : image.slice(digestAt)}`
      }
    }
  }
}

function buildLevel (dir: string): Item[] {
  const kustomization = parseYaml(
    readFileSync(join(dir, 'kustomization.yaml'), 'utf8'),
    join(dir, 'kustomization.yaml')
  )
  for (const key of Object.keys(kustomization)) {
    if (!SUPPORTED.has(key)) throw new Error(`${dir}/kustomization.yaml: field ${key} is not supported by this builder`)
  }
  const items: Item[] = []
  for (const entry of kustomization.resources as string[] | undefined ?? []) {
    const path = join(dir, entry)
    if (statSync(path).isDirectory()) items.push(...buildLevel(path))
    else items.push(...parseYamlDocuments(readFileSync(path, 'utf8'), path).map((object) => ({ object })))
  }

  for (const generator of kustomization.configMapGenerator as JsonObject[] | undefined ?? []) {
    const name = String(generator.name)
    const data: Record<string, string> = {}
    for (const file of (generator.envs as string[] | undefined) ?? []) {
      Object.assign(data, parseEnvFile(readFileSync(join(dir, file), 'utf8'), join(dir, file)))
    }
    for (const literal of (generator.literals as string[] | undefined) ?? []) {
      const [key, value] = parseLiteral(literal)
      data[key] = value
    }
    const behavior = generator.behavior ?? 'create'
    const existing = items.find(
      (item) => item.generated === true && item.object.kind === 'ConfigMap' && nameOf(item.object) === name
    )
    if (behavior === 'create') {
      if (existing !== undefined) {
        throw new Error(`${dir}: configMapGenerator ${name} already exists (use behavior: merge)`)
      }
      items.push({ object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data }, generated: true })
    } else if (behavior === 'merge' || behavior === 'replace') {
      if (existing === undefined) {
        throw new Error(`${dir}: configMapGenerator ${name} has behavior ${String(behavior)} but no base generates it`)
      }
      existing.object.data =
        behavior === 'merge' ? { ...(existing.object.data as Record<string, string>), ...data } : data
    } else {
      throw new Error(`${dir}: unknown generator behavior ${String(behavior)}`)
    }
  }

  for (const patch of kustomization.patches as JsonObject[] | undefined ?? []) {
    const text = typeof patch.path === 'string' ? readFileSync(join(dir, patch.path), 'utf8') : String(patch.patch)
    const parsed = parse(text) as Json
    const target: PatchTarget = isObject(patch.target)
      ? { kind: patch.target.kind as string | undefined, name: patch.target.name as string | undefined }
      : isObject(parsed)
        ? { kind: parsed.kind as string, name: String((parsed.metadata as JsonObject | undefined)?.name) }
        : {}
    const selected = items.filter((item) => matches(item.object, target))
    if (selected.length === 0) throw new Error(`${dir}: patch target ${JSON.stringify(target)} matches no resource`)
    for (const item of selected) {
      if (Array.isArray(parsed)) item.object = applyJsonPatch(item.object, parsed as unknown as JsonPatchOperation[])
      else if (isObject(parsed)) item.object = strategicMerge(item.object, parsed) as JsonObject
      else throw new Error(`${dir}: a patch is neither a strategic merge patch nor a JSON patch`)
    }
  }

  applyImages(items, kustomization.images as JsonObject[] | undefined ?? [])

  if (typeof kustomization.namespace === 'string') {
    for (const item of items) {
      if (!CLUSTER_SCOPED.has(String(item.object.kind))) metadataOf(item.object).namespace = kustomization.namespace
    }
  }
  return items
}

/** Points every ConfigMap reference of a pod spec at the hashed names. */
function renameConfigMapRefs (object: JsonObject, renamed: Map<string, string>): void {
  const pod = podSpecOf(object)
  if (pod === undefined) return
  const rename = (holder: Json | undefined) => {
    if (isObject(holder) && typeof holder.name === 'string' && renamed.has(holder.name)) {
      holder.name = renamed.get(holder.name) as string
    }
  }
  for (const container of containersOf(object)) {
    for (const source of container.envFrom as JsonObject[] | undefined ?? []) rename(source.configMapRef)
    for (const variable of container.env as JsonObject[] | undefined ?? []) {
      if (isObject(variable.valueFrom)) rename(variable.valueFrom.configMapKeyRef)
    }
  }
  for (const volume of pod.volumes as JsonObject[] | undefined ?? []) rename(volume.configMap)
}

/** Builds a kustomization folder into the resources `kubectl apply -k` would send. */
export function kustomizeBuild (dir: string): JsonObject[] {
  const items = buildLevel(dir)
  const renamed = new Map<string, string>()
  for (const item of items) {
    if (item.generated !== true) continue
    const name = nameOf(item.object)
    const hashed = `${name}-${configMapHash(item.object.data as Record<string, string>)}`
    renamed.set(name, hashed)
    metadataOf(item.object).name = hashed
  }
  for (const item of items) renameConfigMapRefs(item.object, renamed)
  return items.map((item) => item.object)
}
