// What passes a JSON schema yet cannot be stored or written back: U+0000 (PostgreSQL refuses it)
// or nesting deep enough to overflow a recursive serialiser. Checked once per request part, at validation.

/** Deepest nesting of objects and arrays a request part may have (free-form metadata included). */
export const MAX_JSON_DEPTH = 32

/** `instancePath` is a JSON pointer to the offending value or key, e.g. `/metadata/name`. */
export interface UnsafeJson { instancePath: string, message: string }

const NUL_MESSAGE = 'must not contain the character U+0000'
const pointer = (path: string[]) =>
  path.map((segment) => `/${segment.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('')

function walk (value: unknown, depth: number, maxDepth: number): { path: string[], message: string } | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? { path: [], message: NUL_MESSAGE } : undefined
  if (typeof value !== 'object' || value === null) return undefined
  if (depth >= maxDepth) return { path: [], message: `must not nest objects and arrays deeper than ${maxDepth} levels` }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = walk(value[i], depth + 1, maxDepth)
      if (found !== undefined) return { path: [String(i), ...found.path], message: found.message }
    }
    return undefined
  }
  for (const key in value) {
    if (key.includes('\u0000')) return { path: [key], message: NUL_MESSAGE }
    const found = walk((value as Record<string, unknown>)[key], depth + 1, maxDepth)
    if (found !== undefined) return { path: [key, ...found.path], message: found.message }
  }
  return undefined
}

/** The first string, key or container of `value` that cannot be stored; undefined when there is none. */
export function findUnsafeJson (value: unknown, maxDepth = MAX_JSON_DEPTH): UnsafeJson | undefined {
  const found = walk(value, 0, maxDepth)
  return found !== undefined ? { instancePath: pointer(found.path), message: found.message } : undefined
}

/** Ajv's `date-time` accepts a leap second (`23:59:60`), which `Date` cannot hold: refused at validation. */
export const isRepresentableDateTime = (value: string): boolean => !Number.isNaN(Date.parse(value))
