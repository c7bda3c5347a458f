import type { DescField } from '@bufbuild/protobuf'
import type { FieldTraits } from './descriptors.ts'
import { createSchemaBuilder } from './openapi.ts'
import type { Catalog } from './route-catalog.ts'

type Schema = Record<string, unknown>

const ERROR_STATUSES = [400, 401, 403, 404, 429, 500, 501, 503, 504]
const STATUS_REF = { $ref: '#/components/schemas/ChainStatus' }

const HEIGHT_PARAMETER = {
  name: 'x-cosmos-block-height',
  in: 'header',
  required: false,
  description: 'Query at this height (0 or absent: latest); Grpc-Metadata-X-Cosmos-Block-Height is read alike',
  schema: { type: 'string', pattern: '^[0-9]+$' }
}

/** `{name=shelves/*}` and `{x=**}` are one OpenAPI parameter each, named after the field they bind. */
const openapiPath = (template: string) => template.replace(/\{([^}=]+)(=[^}]*)?\}/g, '{$1}')

/**
 * The OpenAPI paths of a catalogue: the routes are not Fastify routes (the catalogue changes at
 * runtime), so /docs gets them from here, derived from the same descriptors as the answers.
 */
export function openapiPaths (catalog: Catalog, traitsOf: (field: DescField) => FieldTraits) {
  const schemas = createSchemaBuilder(traitsOf)
  const paths: Record<string, Record<string, unknown>> = {}
  for (const route of catalog.routes) {
    if (route.aliasOf !== undefined) continue
    const { method, compiled } = route
    const bound = new Set(compiled.bindings.map((b) => b.fieldPath))
    const query = schemas.querySchema(method.input, bound) as { properties: Record<string, Schema> }
    const errors = Object.fromEntries(ERROR_STATUSES.map((status) => [status, {
      description: 'google.rpc.Status with the gRPC code',
      content: { 'application/json': { schema: STATUS_REF } }
    }]))
    paths[openapiPath(compiled.template)] = {
      get: {
        tags: [method.parent.typeName],
        operationId: `${method.parent.typeName.replace(/\./g, '_')}_${method.name}`,
        summary: `${method.parent.name}.${method.name} (${route.grpcPath})`,
        description: `google.api.http GET ${compiled.template}`,
        parameters: [
          ...compiled.bindings.map((binding) => ({
            name: binding.fieldPath,
            in: 'path',
            required: true,
            schema: { type: 'string' },
            description: `binds ${binding.fieldPath}${binding.multiSegment ? ' (may hold /)' : ''}`
          })),
          ...Object.entries(query.properties).map(([name, schema]) => ({ name, in: 'query', required: false, schema })),
          HEIGHT_PARAMETER
        ],
        responses: {
          200: {
            description: method.output.typeName,
            content: { 'application/json': { schema: schemas.messageSchema(method.output) } }
          },
          ...errors
        }
      }
    }
  }
  return paths
}
