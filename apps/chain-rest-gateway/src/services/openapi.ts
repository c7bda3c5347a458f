import { ScalarType, type DescField, type DescMessage } from '@bufbuild/protobuf'
import type { FieldTraits } from './descriptors.ts'

/**
 * JSON Schemas for /docs, derived from the same descriptors as the routes: the response as the
 * gateway writes it (proto names, 64-bit as strings, enums as names) and the query parameters
 * it reads. Recursive or very deep messages are cut off as plain objects.
 */
type Schema = Record<string, unknown>

const MAX_DEPTH = 6
const MAX_QUERY_DEPTH = 3

function decimalSchema (traits: FieldTraits | undefined): Schema | undefined {
  const kind = traits?.custom ?? traits?.scalar
  if (kind === undefined) return undefined
  const type = traits?.custom !== undefined && traits.nonNullable !== true ? ['string', 'null'] : 'string'
  return kind === 'dec'
    ? { type, description: 'cosmos.Dec decimal', examples: ['0.100000000000000000'] }
    : { type, description: 'cosmos.Int integer' }
}

function scalarSchema (type: ScalarType, traits?: FieldTraits): Schema {
  switch (type) {
    case ScalarType.STRING:
      return decimalSchema(traits) ?? { type: 'string' }
    case ScalarType.BOOL:
      return { type: 'boolean' }
    case ScalarType.BYTES:
      if (traits?.rawJson === true) return { description: 'contract JSON, written inline (base64 when not JSON)' }
      return decimalSchema(traits) ??
        { type: ['string', 'null'], contentEncoding: 'base64', description: 'base64; null when empty' }
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return { type: 'string', pattern: '^-?[0-9]+$', description: '64-bit integer as a string' }
    case ScalarType.UINT64: case ScalarType.FIXED64:
      return { type: 'string', pattern: '^[0-9]+$', description: 'unsigned 64-bit integer as a string' }
    case ScalarType.FLOAT: case ScalarType.DOUBLE: return { type: 'number' }
    default: return { type: 'integer' }
  }
}

function wellKnownSchema (desc: DescMessage): Schema | undefined {
  switch (desc.typeName) {
    case 'google.protobuf.Timestamp':
      return { type: 'string', format: 'date-time' }
    case 'google.protobuf.Duration':
      return { type: 'string', examples: ['3600s'] }
    case 'google.protobuf.Any':
      return { type: 'object', properties: { '@type': { type: 'string' } }, additionalProperties: true }
    case 'google.protobuf.Struct':
      return { type: 'object', additionalProperties: true }
    case 'google.protobuf.Value':
      return {}
  }
  return undefined
}

export function createSchemaBuilder (traitsOf: (field: DescField) => FieldTraits) {
  function fieldSchema (field: DescField, depth: number, seen: Set<string>): Schema {
    const enumSchema = () => ({ type: 'string', enum: field.enum!.values.map((v) => v.name) })
    switch (field.fieldKind) {
      case 'scalar': return scalarSchema(field.scalar, traitsOf(field))
      case 'enum': return enumSchema()
      case 'message': {
        // An unset message field is written as null (a Timestamp too), unless gogoproto makes it non-nullable.
        const schema = messageSchema(field.message, depth + 1, seen)
        if (traitsOf(field).nonNullable || typeof schema.type !== 'string') return schema
        return { ...schema, type: [schema.type, 'null'] }
      }
      case 'list': {
        const items = field.listKind === 'scalar'
          ? scalarSchema(field.scalar, traitsOf(field))
          : field.listKind === 'enum' ? enumSchema() : messageSchema(field.message, depth + 1, seen)
        return { type: 'array', items }
      }
      case 'map': {
        const values = field.mapKind === 'scalar'
          ? scalarSchema(field.scalar)
          : field.mapKind === 'enum' ? enumSchema() : messageSchema(field.message, depth + 1, seen)
        return { type: 'object', additionalProperties: values }
      }
    }
  }

  function messageSchema (desc: DescMessage, depth = 0, seen = new Set<string>()): Schema {
    const known = wellKnownSchema(desc)
    if (known !== undefined) return known
    if (depth > MAX_DEPTH || seen.has(desc.typeName)) {
      return { type: 'object', additionalProperties: true, description: desc.typeName }
    }
    const inner = new Set(seen).add(desc.typeName)
    const properties: Record<string, Schema> = {}
    for (const field of desc.fields) properties[field.name] = fieldSchema(field, depth, inner)
    return { type: 'object', properties, description: desc.typeName }
  }

  /** Query parameters: scalar, enum and repeated-scalar leaves by dotted proto name, minus path-bound fields. */
  function querySchema (desc: DescMessage, bound: Set<string>): Schema {
    const properties: Record<string, Schema> = {}
    const walk = (message: DescMessage, prefix: string, depth: number) => {
      for (const field of message.fields) {
        const name = `${prefix}${field.name}`
        if (bound.has(name)) continue
        if (field.fieldKind === 'scalar') {
          properties[name] =
            field.scalar === ScalarType.BYTES
              ? { type: 'string', contentEncoding: 'base64' }
              : scalarSchema(field.scalar, traitsOf(field))
        } else if (field.fieldKind === 'enum') {
          properties[name] = { type: 'string', enum: field.enum.values.map((v) => v.name) }
        } else if (field.fieldKind === 'list' && field.listKind !== 'message') {
          properties[name] = {
            type: 'array',
            items: field.listKind === 'scalar' ? scalarSchema(field.scalar) : { type: 'string' }
          }
        } else if (
          field.fieldKind === 'message' &&
          depth < MAX_QUERY_DEPTH &&
          wellKnownSchema(field.message) === undefined
        ) {
          walk(field.message, `${name}.`, depth + 1)
        }
      }
    }
    walk(desc, '', 0)
    return { type: 'object', properties }
  }

  return { messageSchema, querySchema }
}
