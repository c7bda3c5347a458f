import { isObject, type Json, type JsonObject } from './yaml.ts'

/**
 * Strategic merge patch, the part of Kubernetes' semantics the overlays use: maps merge recursively
 * (`null` deletes a key); lists of named things merge by their key (containers, env, volumes, …);
 * every other list is replaced.
 */
const MERGE_KEYS: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  env: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
  imagePullSecrets: 'name',
  tolerations: 'key'
}

function mergeKeyOf (field: string, items: Json[]): string | undefined {
  if (field === 'ports') {
    return items.some((item) => isObject(item) && 'containerPort' in item) ? 'containerPort' : 'port'
  }
  return MERGE_KEYS[field]
}

export function strategicMerge (target: Json, patch: Json, field = ''): Json {
  if (isObject(target) && isObject(patch)) {
    const out: JsonObject = { ...target }
    for (const [key, value] of Object.entries(patch)) {
      if (key === '$patch') throw new Error('$patch directives are not supported by this builder')
      if (value === null) delete out[key]
      else out[key] = key in out ? strategicMerge(out[key] as Json, value, key) : value
    }
    return out
  }
  if (Array.isArray(target) && Array.isArray(patch)) {
    const key = mergeKeyOf(field, [...target, ...patch])
    if (key === undefined) return patch
    const out = [...target]
    for (const item of patch) {
      const index = isObject(item) ? out.findIndex((existing) => isObject(existing) && existing[key] === item[key]) : -1
      if (index === -1) out.push(item)
      else out[index] = strategicMerge(out[index] as Json, item, field)
    }
    return out
  }
  return patch
}

export interface JsonPatchOperation {
  op: 'add' | 'replace' | 'remove' | 'test' | 'copy' | 'move'
  path: string
  value?: Json
}

const decodePointer = (pointer: string): string[] =>
  pointer === ''
    ? []
    : pointer
      .replace(/^\//, '')
      .split('/')
      .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'))

/** RFC 6902 add, replace and remove (what the overlays use); returns a new document. */
export function applyJsonPatch (document: JsonObject, operations: JsonPatchOperation[]): JsonObject {
  const root = structuredClone(document)
  for (const operation of operations) {
    const tokens = decodePointer(operation.path)
    const last = tokens.pop()
    if (last === undefined) throw new Error(`JSON patch: cannot ${operation.op} the whole document`)
    let parent: Json = root
    for (const token of tokens) {
      const next: Json | undefined = Array.isArray(parent)
        ? parent[Number(token)]
        : isObject(parent)
          ? parent[token]
          : undefined
      if (next === undefined) throw new Error(`JSON patch: ${operation.path} does not exist`)
      parent = next
    }
    if (Array.isArray(parent)) {
      const index = last === '-' ? parent.length : Number(last)
      if (!Number.isInteger(index) || index < 0 || index > parent.length) {
        throw new Error(`JSON patch: bad index in ${operation.path}`)
      }
      if (operation.op === 'add') parent.splice(index, 0, structuredClone(operation.value as Json))
      else if (operation.op === 'replace' && index < parent.length) {
        parent[index] = structuredClone(operation.value as Json)
      } else if (operation.op === 'remove' && index < parent.length) parent.splice(index, 1)
      else throw new Error(`JSON patch: cannot ${operation.op} ${operation.path}`)
    } else if (isObject(parent)) {
      if (operation.op === 'add') parent[last] = structuredClone(operation.value as Json)
      else if ((operation.op === 'replace' || operation.op === 'remove') && last in parent) {
        if (operation.op === 'replace') parent[last] = structuredClone(operation.value as Json)
        else delete parent[last]
      } else throw new Error(`JSON patch: cannot ${operation.op} ${operation.path} (missing, or an unsupported op)`)
    } else {
      throw new Error(`JSON patch: ${operation.path} has no container`)
    }
  }
  return root
}
