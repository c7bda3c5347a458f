import type { ToolDeclaration } from '@impact/schemas'
import type { TSchema } from '@sinclair/typebox'
import type { RuntimeEventName } from '../event-bus.ts'
import type { ToolDefinition } from './model.ts'

/** What a server tool's code can reach while it runs. */
export interface ToolContext {
  did: string
  sessionId: string
  requestId: string
  signal: AbortSignal
  /** Emits a typed runtime event for this turn (e.g. `render_component`), forwarded to the user's sockets. */
  emit: (name: RuntimeEventName, data: Record<string, unknown>) => void
}

/** A tool that runs in the runtime (contributed by a plugin). `parameters` is a TypeBox schema. */
export interface ServerTool {
  name: string
  description: string
  parameters: TSchema
  execute: (args: any, context: ToolContext) => Promise<unknown>
}

/**
 * A tool or action the client declared in the message body (`tools`, `agActions`), as the model sees it.
 * Browser SDKs send zod-derived schemas, sometimes degenerate (`{"$schema": …}` only). Providers
 * want an object schema, so the `$schema` key goes and a missing type becomes an empty object.
 */
export function clientToolDefinition (tool: ToolDeclaration): ToolDefinition {
  const { $schema: _ignored, ...schema } = tool.schema
  const parameters = schema.type === 'object' ? schema : { type: 'object', properties: {}, ...schema, ...(schema.type === undefined ? {} : { type: 'object' }) }
  return { name: tool.name, description: tool.description, parameters }
}

export const serverToolDefinition = (tool: ServerTool): ToolDefinition => {
  const { $id: _id, ...parameters } = JSON.parse(JSON.stringify(tool.parameters)) as Record<string, unknown>
  return { name: tool.name, description: tool.description, parameters }
}
