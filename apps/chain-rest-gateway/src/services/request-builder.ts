import { create, ScalarType, toBinary, type DescField, type DescMessage } from '@bufbuild/protobuf'
import { invalidArgument } from '../errors.ts'

/**
 * Builds the request message from path variables and query parameters the way grpc-gateway v1
 * does: dotted field paths by proto or JSON name, repeated keys for repeated scalars (the first
 * for others), enums by name or number, 64-bit integers from decimal strings, bytes from (URL-safe)
 * base64, Go's ParseBool. Unknown keys and keys of fields already bound in the path are ignored.
 */
export interface RequestBuilder {
  encode: (pathValues: Array<[string, string]>, query: Record<string, unknown>) => Uint8Array
}

type Init = Record<string, unknown>
type Resolved = DescField[]

const BOOL_VALUES: Record<string, boolean> = {
  1: true,
  t: true,
  T: true,
  TRUE: true,
  true: true,
  True: true,
  0: false,
  f: false,
  F: false,
  FALSE: false,
  false: false,
  False: false
}
const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
const UINT64_MAX = 2n ** 64n - 1n
const STD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
const URL_BASE64 = /^(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2}==|[A-Za-z0-9_-]{3}=)?$/

class ValueError extends Error {}

function integer (text: string, min: bigint, max: bigint, what: string): bigint {
  if (!/^[+-]?\d+$/.test(text) || (min === 0n && text.startsWith('-'))) throw new ValueError(`expected ${what}`)
  const value = BigInt(text)
  if (value < min || value > max) throw new ValueError(`${what} out of range`)
  return value
}

export function parseScalar (type: ScalarType, text: string): unknown {
  switch (type) {
    case ScalarType.STRING: return text
    case ScalarType.BOOL: {
      const value = BOOL_VALUES[text]
      if (value === undefined) throw new ValueError('expected a boolean (true/false/1/0)')
      return value
    }
    case ScalarType.INT32: case ScalarType.SINT32: case ScalarType.SFIXED32:
      return Number(integer(text, -(2n ** 31n), 2n ** 31n - 1n, 'a 32-bit integer'))
    case ScalarType.UINT32: case ScalarType.FIXED32:
      return Number(integer(text, 0n, 2n ** 32n - 1n, 'an unsigned 32-bit integer'))
    case ScalarType.INT64: case ScalarType.SINT64: case ScalarType.SFIXED64:
      return integer(text, INT64_MIN, INT64_MAX, 'a 64-bit integer')
    case ScalarType.UINT64: case ScalarType.FIXED64:
      return integer(text, 0n, UINT64_MAX, 'an unsigned 64-bit integer')
    case ScalarType.FLOAT: case ScalarType.DOUBLE: {
      const value = text.trim() === '' ? Number.NaN : Number(text)
      if (Number.isNaN(value) && text !== 'NaN') throw new ValueError('expected a number')
      return value
    }
    case ScalarType.BYTES:
      if (STD_BASE64.test(text)) return new Uint8Array(Buffer.from(text, 'base64'))
      if (URL_BASE64.test(text)) return new Uint8Array(Buffer.from(text, 'base64url'))
      throw new ValueError('expected padded base64 (percent-encode +, / and =)')
  }
}

function parseEnum (field: DescField, text: string): number {
  const values = field.enum!.values
  const named = values.find((v) => v.name === text)
  if (named !== undefined) return named.number
  if (/^[+-]?\d+$/.test(text)) {
    const number = Number(text)
    if (values.some((v) => v.number === number)) return number
  }
  throw new ValueError(`expected one of ${values.map((v) => v.name).join(', ')} or its number`)
}

function parseTimestamp (text: string): Init {
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/.exec(text)
  const millis = match !== null ? Date.parse(`${match[1]}${match[3]}`) : Number.NaN
  if (Number.isNaN(millis)) throw new ValueError('expected an RFC 3339 timestamp')
  return { seconds: BigInt(millis / 1000), nanos: Number((match![2] ?? '.0').slice(1).padEnd(9, '0')) }
}

function parseDuration (text: string): Init {
  const match = /^(-)?(\d+)(?:\.(\d{1,9}))?s$/.exec(text)
  if (match === null) throw new ValueError('expected a duration such as 3600s or 1.5s')
  const sign = match[1] === '-' ? -1 : 1
  return { seconds: BigInt(sign) * BigInt(match[2]!), nanos: sign * Number((match[3] ?? '0').padEnd(9, '0')) }
}

/** A leaf value: scalars, enums, and the well-known messages that have a string form. */
function leafValue (field: DescField, text: string): unknown {
  if (field.fieldKind === 'scalar' || (field.fieldKind === 'list' && field.listKind === 'scalar')) {
    return parseScalar(field.scalar!, text)
  }
  if (field.fieldKind === 'enum' || (field.fieldKind === 'list' && field.listKind === 'enum')) {
    return parseEnum(field, text)
  }
  const message = field.message
  switch (message?.typeName) {
    case 'google.protobuf.Timestamp': return parseTimestamp(text)
    case 'google.protobuf.Duration': return parseDuration(text)
    case 'google.protobuf.FieldMask': return { paths: text.split(',').filter((p) => p !== '') }
  }
  if (
    message?.typeName.startsWith('google.protobuf.') === true &&
    message.typeName.endsWith('Value') &&
    message.fields[0]?.scalar !== undefined
  ) {
    return { value: parseScalar(message.fields[0].scalar, text) }
  }
  return undefined
}

function findField (desc: DescMessage, name: string): DescField | undefined {
  return desc.fields.find((f) => f.name === name) ?? desc.fields.find((f) => f.jsonName === name)
}

function resolvePath (desc: DescMessage, path: string): Resolved | undefined {
  const fields: DescField[] = []
  let current: DescMessage | undefined = desc
  for (const name of path.split('.')) {
    if (current === undefined) return undefined
    const field = findField(current, name)
    if (field === undefined || field.fieldKind === 'map') return undefined
    fields.push(field)
    current = field.fieldKind === 'message' ? field.message : undefined
  }
  return fields
}

function assign (init: Init, fields: Resolved, values: string[], key: string): void {
  let target = init
  for (const field of fields.slice(0, -1)) {
    if (field.oneof !== undefined) {
      let selected = target[field.oneof.localName] as { case: string, value: Init } | undefined
      if (selected?.case !== field.localName) {
        selected = { case: field.localName, value: {} }
        target[field.oneof.localName] = selected
      }
      target = selected.value
    } else {
      target[field.localName] ??= {}
      target = target[field.localName] as Init
    }
  }
  const leaf = fields[fields.length - 1]!
  try {
    if (leaf.fieldKind === 'list') {
      const parsed = values.map((v) => leafValue(leaf, v))
      if (parsed.some((v) => v === undefined)) return
      target[leaf.localName] = parsed
      return
    }
    // grpc-gateway v1 takes the first of repeated keys for a singular field.
    const value = leafValue(leaf, values[0]!)
    if (value === undefined) return
    if (leaf.oneof !== undefined) target[leaf.oneof.localName] = { case: leaf.localName, value }
    else target[leaf.localName] = value
  } catch (error) {
    if (error instanceof ValueError) throw invalidArgument(`invalid value for ${key}: ${error.message}`)
    throw error
  }
}

const PAGE_REQUEST = 'cosmos.base.query.v1beta1.PageRequest'
/** Cosmos' own default page size, used when a limit is absent or 0. */
const NODE_DEFAULT_LIMIT = 100n

/**
 * Caps `pagination.limit` at `max` (0: no cap). An absent limit means the node's default of 100,
 * so it is only set when the cap is lower.
 */
function capPageLimit (desc: DescMessage, max: bigint): ((init: Init) => void) | undefined {
  const field = desc.fields.find((f) => f.fieldKind === 'message' && f.message.typeName === PAGE_REQUEST)
  if (max <= 0n || field === undefined) return undefined
  return (init) => {
    const page = (init[field.localName] ??= {}) as Init
    const limit = (page.limit as bigint | undefined) ?? 0n
    if (limit > max || (limit === 0n && max < NODE_DEFAULT_LIMIT)) page.limit = max
  }
}

export function createRequestBuilder (desc: DescMessage, boundPaths: string[], maxPageLimit = 0): RequestBuilder {
  const cap = capPageLimit(desc, BigInt(maxPageLimit))
  const bound = boundPaths.map((path) => resolvePath(desc, path))
  const boundSet = new Set(
    bound.flatMap((fields) => (fields === undefined ? [] : [fields.map((f) => f.name).join('.')]))
  )
  const resolved = new Map<string, Resolved | null>()
  const lookup = (key: string): Resolved | null => {
    let fields = resolved.get(key)
    if (fields === undefined) {
      fields = resolvePath(desc, key) ?? null
      // Only known keys are remembered, so arbitrary query keys cannot grow the map.
      if (fields !== null) resolved.set(key, fields)
    }
    return fields
  }
  return {
    encode (pathValues, query) {
      const init: Init = {}
      pathValues.forEach(([path, value], index) => {
        const fields = bound[index]
        if (fields === undefined) throw invalidArgument(`missing parameter ${path}`)
        try {
          assign(init, fields, [value], path)
        } catch {
          throw invalidArgument(`type mismatch, parameter: ${path}, error: ${describe(fields, value)}`)
        }
      })
      for (const [key, raw] of Object.entries(query)) {
        const fields = lookup(key)
        if (fields === null || boundSet.has(fields.map((f) => f.name).join('.'))) continue
        const values = (Array.isArray(raw) ? raw : [raw]).map(String)
        assign(init, fields, values, key)
      }
      cap?.(init)
      return toBinary(desc, create(desc, init))
    }
  }
}

function describe (fields: Resolved, value: string): string {
  try {
    leafValue(fields[fields.length - 1]!, value)
    return 'invalid value'
  } catch (error) {
    return `${JSON.stringify(value)}: ${(error as Error).message}`
  }
}
