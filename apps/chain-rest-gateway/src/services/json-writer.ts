import { fromBinary, ScalarType, type DescField, type DescMessage, type Registry } from '@bufbuild/protobuf'
import type { FieldTraits } from './descriptors.ts'
import { inlineJson } from './raw-json.ts'

/**
 * Writes messages as Cosmos nodes' REST gateways do (gogo jsonpb with OrigName and EmitDefaults):
 * proto field names as written, every field present, 64-bit integers as strings, enums as names,
 * empty bytes and unset nullable messages as null, RFC 3339 timestamps, cosmos.Dec as decimals.
 */
export type JsonWriter = (desc: DescMessage, message: Record<string, unknown>) => string

type AnyRecord = Record<string, unknown>

const ZERO_TIME = '"0001-01-01T00:00:00Z"'
const DEC_PRECISION = 18

/** Trailing-zero trimming of Go's jsonpb: 0, 3, 6 or 9 fractional digits. */
function fraction (nanos: number): string {
  if (nanos === 0) return ''
  const digits = String(nanos).padStart(9, '0')
  if (digits.endsWith('000000')) return `.${digits.slice(0, 3)}`
  if (digits.endsWith('000')) return `.${digits.slice(0, 6)}`
  return `.${digits}`
}

export function formatTimestamp (seconds: bigint | number | string, nanos: number): string {
  const iso = new Date(Number(seconds) * 1000).toISOString()
  return `${iso.slice(0, 19)}${fraction(nanos)}Z`
}

export function formatDuration (seconds: bigint | number | string, nanos: number): string {
  const secs = BigInt(seconds)
  const negative = secs < 0n || nanos < 0
  const whole = secs < 0n ? -secs : secs
  return `${negative ? '-' : ''}${whole}${fraction(Math.abs(nanos))}s`
}

/** cosmos.Dec travels as an integer scaled by 10^18; REST shows it with the decimal point (cosmos-sdk#10863). */
export function formatDec (raw: string): string {
  if (raw === '') return `0.${'0'.repeat(DEC_PRECISION)}`
  if (!/^-?\d+$/.test(raw)) return raw
  const negative = raw.startsWith('-')
  const digits = (negative ? raw.slice(1) : raw).padStart(DEC_PRECISION + 1, '0')
  const cut = digits.length - DEC_PRECISION
  return `${negative ? '-' : ''}${digits.slice(0, cut)}.${digits.slice(cut)}`
}

function float32 (value: number): string {
  for (let precision = 1; precision <= 9; precision++) {
    const text = value.toPrecision(precision)
    if (Math.fround(Number(text)) === value) return String(Number(text))
  }
  return String(value)
}

/**
 * A gogoproto customtype Dec/Int: integer text on the wire (string or bytes), a decimal or integer
 * string in JSON; a nullable customtype the node never set is a nil pointer, so `null`.
 */
function customJson (text: string, traits: FieldTraits): string {
  if (text === '' && !traits.nonNullable) return 'null'
  if (traits.custom === 'dec') return `"${formatDec(text)}"`
  return text === '' ? '"0"' : JSON.stringify(text)
}

const utf8 = new TextDecoder()

function bytesJson (bytes: Uint8Array, traits?: FieldTraits): string {
  if (traits?.rawJson === true) {
    if (bytes.length === 0) return 'null'
    // Not JSON: the node would fail the whole answer; base64 keeps it readable instead.
    const inline = inlineJson(bytes)
    if (inline !== undefined) return inline
  } else if (traits?.custom !== undefined) {
    return customJson(utf8.decode(bytes), traits)
  }
  return bytes.length === 0
    ? 'null'
    : `"${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')}"`
}

function scalarJson (type: ScalarType, value: unknown, traits?: FieldTraits): string {
  switch (type) {
    case ScalarType.STRING:
      return traits?.custom !== undefined ? customJson(value as string, traits) : JSON.stringify(value)
    case ScalarType.BOOL:
      return value === true ? 'true' : 'false'
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return `"${String(value)}"`
    case ScalarType.BYTES:
      return bytesJson(value as Uint8Array, traits)
    case ScalarType.DOUBLE: case ScalarType.FLOAT: {
      const number = value as number
      if (Number.isNaN(number)) return '"NaN"'
      if (!Number.isFinite(number)) return number > 0 ? '"Infinity"' : '"-Infinity"'
      return type === ScalarType.FLOAT ? float32(number) : String(number)
    }
    default:
      return String(value)
  }
}

const WRAPPERS = new Set(
  [
    'DoubleValue',
    'FloatValue',
    'Int64Value',
    'UInt64Value',
    'Int32Value',
    'UInt32Value',
    'BoolValue',
    'StringValue',
    'BytesValue'
  ].map((name) => `google.protobuf.${name}`)
)

export function createJsonWriter (registry: Registry, traitsOf: (field: DescField) => FieldTraits): JsonWriter {
  function enumJson (field: DescField, value: number): string {
    const enumDesc = field.enum
    const named = enumDesc?.values.find((v) => v.number === value)
    return named !== undefined ? `"${named.name}"` : String(value)
  }

  function structValue (value: AnyRecord | undefined): string {
    const kind = value?.kind as { case?: string, value?: unknown } | undefined
    switch (kind?.case) {
      case 'numberValue': return scalarJson(ScalarType.DOUBLE, kind.value)
      case 'stringValue': return JSON.stringify(kind.value)
      case 'boolValue': return kind.value === true ? 'true' : 'false'
      case 'structValue': return structJson(kind.value as AnyRecord)
      case 'listValue': return `[${((kind.value as AnyRecord).values as AnyRecord[]).map(structValue).join(',')}]`
      default: return 'null'
    }
  }

  function structJson (value: AnyRecord): string {
    const fields = value.fields as Record<string, AnyRecord>
    return `{${Object.keys(fields)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${structValue(fields[key])}`)
      .join(',')}}`
  }

  /** Well-known types with a JSON form of their own; undefined for ordinary messages. */
  function wellKnown (desc: DescMessage, value: AnyRecord): string | undefined {
    const name = desc.typeName
    if (!name.startsWith('google.protobuf.')) return undefined
    if (name === 'google.protobuf.Timestamp') {
      return `"${formatTimestamp(value.seconds as bigint, value.nanos as number)}"`
    }
    if (name === 'google.protobuf.Duration') {
      return `"${formatDuration(value.seconds as bigint, value.nanos as number)}"`
    }
    if (name === 'google.protobuf.Any') return anyJson(value)
    if (WRAPPERS.has(name)) return scalarJson(desc.fields[0]!.scalar!, value.value)
    if (name === 'google.protobuf.Struct') return structJson(value)
    if (name === 'google.protobuf.Value') return structValue(value)
    if (name === 'google.protobuf.ListValue') return `[${(value.values as AnyRecord[]).map(structValue).join(',')}]`
    if (name === 'google.protobuf.FieldMask') {
      return JSON.stringify(
        (value.paths as string[]).map((p) => p.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase())).join(',')
      )
    }
    return undefined
  }

  function anyJson (value: AnyRecord): string {
    const typeUrl = value.typeUrl as string
    const bytes = value.value as Uint8Array
    const desc = registry.getMessage(typeUrl.slice(typeUrl.lastIndexOf('/') + 1))
    if (desc === undefined) {
      // An unknown packed type cannot be expanded; keep its bytes rather than failing the answer.
      const packed = bytes.length === 0 ? '""' : `"${Buffer.from(bytes).toString('base64')}"`
      return `{"@type":${JSON.stringify(typeUrl)},"value":${packed}}`
    }
    const inner = fromBinary(desc, bytes) as unknown as AnyRecord
    const special = wellKnown(desc, inner)
    if (special !== undefined) return `{"@type":${JSON.stringify(typeUrl)},"value":${special}}`
    const body = messageJson(desc, inner)
    return `{"@type":${JSON.stringify(typeUrl)}${body.length > 2 ? `,${body.slice(1)}` : '}'}`
  }

  function messageValue (field: DescField, desc: DescMessage, value: AnyRecord | undefined): string {
    if (value === undefined) {
      if (!traitsOf(field).nonNullable) return 'null'
      // gogo non-nullable fields are plain Go values: rendered with their defaults, never null.
      if (desc.typeName === 'google.protobuf.Timestamp') return ZERO_TIME
      if (desc.typeName === 'google.protobuf.Duration') return '"0s"'
      return messageJson(desc, {})
    }
    return wellKnown(desc, value) ?? messageJson(desc, value)
  }

  function fieldJson (field: DescField, value: unknown): string {
    switch (field.fieldKind) {
      case 'scalar':
        return scalarJson(field.scalar, value ?? defaultScalar(field.scalar), traitsOf(field))
      case 'enum':
        return enumJson(field, (value as number | undefined) ?? 0)
      case 'message':
        return messageValue(field, field.message, value as AnyRecord | undefined)
      case 'list': {
        const items = (value as unknown[] | undefined) ?? []
        if (field.listKind === 'scalar') {
          const traits = traitsOf(field)
          return `[${items.map((item) => scalarJson(field.scalar, item, traits)).join(',')}]`
        }
        if (field.listKind === 'enum') return `[${items.map((item) => enumJson(field, item as number)).join(',')}]`
        const itemJson = (item: unknown) =>
          wellKnown(field.message, item as AnyRecord) ?? messageJson(field.message, item as AnyRecord)
        return `[${items.map(itemJson).join(',')}]`
      }
      case 'map': {
        const entries = (value as Record<string, unknown> | undefined) ?? {}
        const parts = Object.keys(entries)
          .sort()
          .map((key) => {
            const item = entries[key]
            const json =
              field.mapKind === 'scalar'
                ? scalarJson(field.scalar, item)
                : field.mapKind === 'enum'
                  ? enumJson(field, item as number)
                  : messageValue(field, field.message, item as AnyRecord)
            return `${JSON.stringify(key)}:${json}`
          })
        return `{${parts.join(',')}}`
      }
    }
  }

  function messageJson (desc: DescMessage, message: AnyRecord): string {
    const special = wellKnown(desc, message)
    if (special !== undefined && Object.keys(message).length > 0) return special
    const parts: string[] = []
    for (const member of desc.members) {
      if (member.kind === 'oneof') {
        const selected = message[member.localName] as { case?: string, value?: unknown } | undefined
        if (selected?.case === undefined) continue
        const field = member.fields.find((f) => f.localName === selected.case)
        if (field !== undefined) parts.push(`"${field.name}":${fieldJson(field, selected.value)}`)
        continue
      }
      parts.push(`"${member.name}":${fieldJson(member, message[member.localName])}`)
    }
    return `{${parts.join(',')}}`
  }

  return (desc, message) => messageJson(desc, message)
}

function defaultScalar (type: ScalarType): unknown {
  switch (type) {
    case ScalarType.STRING:
      return ''
    case ScalarType.BOOL:
      return false
    case ScalarType.BYTES:
      return new Uint8Array(0)
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return 0n
    default:
      return 0
  }
}
