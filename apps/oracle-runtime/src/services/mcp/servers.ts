import { Type, type Static } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'

/** One MCP server of ORACLE_MCP_SERVERS. */
export const McpServerConfigSchema = Type.Object({
  // No `__` inside: it separates the server from the tool in the names the model sees.
  name: Type.String({ pattern: '^(?!.*__)[A-Za-z0-9][A-Za-z0-9_-]{0,23}$', description: 'Prefix of its tools' }),
  url: Type.String({ pattern: '^https?://[^\\s]+$', description: 'Streamable HTTP endpoint, e.g. http://host/mcp' }),
  protected: Type.Optional(Type.Union([
    Type.Boolean(),
    Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 256 })
  ], { description: 'Tools (MCP names) that need the client\'s UCAN invocation; true: all of them' })),
  approval: Type.Optional(Type.Union([Type.Literal('annotations'), Type.Literal('always'), Type.Literal('never')], {
    description: 'Which tool calls wait for the user\'s approval: `annotations` (default) those the server marks ' +
      'as writing (readOnlyHint: false) or destructive (destructiveHint: true); `always`; `never`'
  })),
  headers: Type.Optional(Type.Record(
    Type.String({ pattern: '^[A-Za-z0-9!#$%&\'*+.^_`|~-]+$' }),
    Type.String({ maxLength: 8192 }),
    { description: 'Sent on every request to the server (an API key, say)' }
  ))
}, { additionalProperties: false })
export type McpServerConfig = Static<typeof McpServerConfigSchema>

export const McpServersSchema = Type.Array(McpServerConfigSchema, { maxItems: 32 })

const KEY = 'ORACLE_MCP_SERVERS'

/**
 * Problems with ORACLE_MCP_SERVERS, each naming the key and the place in the JSON. Values are never
 * echoed: headers may hold keys.
 */
export function mcpServersIssues (value: string | undefined): string[] {
  if (value === undefined) return []
  let parsed: unknown
  try {
    parsed = JSON.parse(value)
  } catch {
    return [`${KEY} must be a JSON array of { name, url, protected?, approval?, headers? }`]
  }
  const issues = new Map<string, string>()
  for (const error of Value.Errors(McpServersSchema, parsed)) {
    const path = error.path === '' ? '' : ` at ${error.path}`
    if (!issues.has(error.path)) issues.set(error.path, `${KEY}${path}: ${error.message}`)
  }
  if (issues.size > 0) return [...issues.values()]
  const names = (parsed as McpServerConfig[]).map((s) => s.name)
  const twice = names.filter((name, i) => names.indexOf(name) !== i)
  return twice.map((name) => `${KEY} names the server ${name} twice`)
}

/** The servers of a loaded config (already checked by mcpServersIssues). */
export const mcpServers = (value: string | undefined): McpServerConfig[] =>
  value === undefined ? [] : JSON.parse(value) as McpServerConfig[]
