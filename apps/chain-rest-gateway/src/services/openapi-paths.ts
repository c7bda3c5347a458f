import type { DescField } from '@bufbuild/protobuf'
import type { FieldTraits } from './descriptors.ts'
import { createSchemaBuilder } from './openapi.ts'
import { plainTemplate } from './route-catalog.ts'
import type { Served } from './served.ts'

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

const errorResponses = () => Object.fromEntries(ERROR_STATUSES.map((status) => [status, {
  description: 'google.rpc.Status with the gRPC code',
  content: { 'application/json': { schema: STATUS_REF } }
}]))

/** The gateway's own routes beside the catalogue's, when served: the block stream and the broadcast pass-through. */
export interface ExtraRoutes {
  /** The path of the block stream, or undefined when GetLatestBlock is not allowed. */
  streamPath: string | undefined
  /** [path, cosmos.tx.v1beta1.Service method] pairs, when CHAIN_BROADCAST_URL is set. */
  broadcast: ReadonlyArray<readonly [string, string]>
}

/**
 * The OpenAPI paths of a catalogue: the routes are not Fastify routes (the catalogue changes at
 * runtime), so /docs gets them from here, derived from the same descriptors as the answers.
 */
export function openapiPaths (served: Served, traitsOf: (field: DescField) => FieldTraits, extra: ExtraRoutes) {
  const schemas = createSchemaBuilder(traitsOf)
  const paths: Record<string, Record<string, unknown>> = {}
  for (const route of served.catalog.routes) {
    if (route.aliasOf !== undefined) continue
    const { method, compiled } = route
    const bound = new Set(compiled.bindings.map((b) => b.fieldPath))
    const query = schemas.querySchema(method.input, bound) as { properties: Record<string, Schema> }
    const errors = errorResponses()
    // `{name=shelves/*}` and `{x=**}` are one OpenAPI parameter each, named after the field they bind.
    paths[plainTemplate(compiled.template)] = {
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
  const message = (typeName: string) => {
    const desc = served.registry.getMessage(typeName)
    return desc !== undefined ? schemas.messageSchema(desc) : { type: 'object', description: typeName }
  }
  if (extra.streamPath !== undefined) paths[extra.streamPath] = { get: streamOperation(message) }
  for (const [path, name] of extra.broadcast) paths[path] = { post: broadcastOperation(name, message) }
  return paths
}

function streamOperation (message: (typeName: string) => Schema) {
  return {
    tags: ['stream'],
    operationId: 'blocks_stream',
    summary: 'New blocks as they are made: Server-Sent Events, or WebSocket messages on the same path',
    description: 'SSE: `id` is the height, `event: block`, `data` is the block as /blocks/latest writes it ' +
      '(`{"height":"N"}` when the descriptors lack the tendermint service). A client reconnecting with ' +
      'Last-Event-ID (or `?last_event_id=` on a WebSocket) gets the blocks it missed first. A client too slow ' +
      'to read is dropped rather than buffered.',
    parameters: [
      { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'string', pattern: '^[0-9]+$' } },
      { name: 'last_event_id', in: 'query', required: false, schema: { type: 'string', pattern: '^[0-9]+$' } }
    ],
    responses: {
      200: {
        description: 'an endless event stream',
        content: {
          'text/event-stream': {
            schema: { type: 'string' },
            itemSchema: message('cosmos.base.tendermint.v1beta1.GetLatestBlockResponse')
          }
        }
      },
      101: { description: 'switched to WebSocket: each text message is one block\'s JSON' },
      ...errorResponses()
    }
  }
}

function broadcastOperation (name: string, message: (typeName: string) => Schema) {
  const type = `cosmos.tx.v1beta1.${name}`
  return {
    tags: ['cosmos.tx.v1beta1.Service'],
    operationId: `cosmos_tx_v1beta1_Service_${name}`,
    summary: `Service.${name} (/cosmos.tx.v1beta1.Service/${name}), passed to the broadcast node`,
    description: 'A signed transaction goes to CHAIN_BROADCAST_URL unchanged; nothing is signed or cached here.',
    requestBody: { required: true, content: { 'application/json': { schema: message(`${type}Request`) } } },
    responses: {
      200: { description: `${type}Response`, content: { 'application/json': { schema: message(`${type}Response`) } } },
      ...errorResponses()
    }
  }
}
