import { Kind, Type, TypeRegistry } from '@sinclair/typebox'
import type { ServerTool } from '../../services/agent/tools.ts'
import { createMcpConnection, type McpConnection, type McpTool } from '../../services/mcp/connection.ts'
import { resultText } from '../../services/mcp/results.ts'
import { mcpServers } from '../../services/mcp/servers.ts'
import type { PluginDefinition } from '../types.ts'

// MCP servers check arguments against their own JSON schemas; here a call only needs an object.
const MCP_INPUT = 'McpInputSchema'
if (!TypeRegistry.Has(MCP_INPUT)) {
  TypeRegistry.Set(MCP_INPUT, (_schema, value) => typeof value === 'object' && value !== null && !Array.isArray(value))
}
/** How long start-up waits for the first connection attempts before serving without the slow servers. */
const START_WAIT_MS = 3000

function serverTool (connection: McpConnection, tool: McpTool, timeoutMs: number): ServerTool {
  const note = tool.protected ? ' (Needs the user\'s authorisation, which their app sends with the message.)' : ''
  return {
    name: tool.name,
    description: `${tool.description}${note}`,
    parameters: Type.Unsafe({ ...tool.inputSchema, [Kind]: MCP_INPUT }),
    sideEffects: tool.changesState,
    summarize: (args: Record<string, unknown>) =>
      `${tool.destructive ? 'May delete or overwrite data: run' : 'Run'} ${tool.mcpName} on the MCP server ` +
      `${connection.server.name} with ${JSON.stringify(args).slice(0, 300)}`,
    async execute (args: Record<string, unknown>, context) {
      const invalid = tool.invalid(args)
      if (invalid !== undefined) throw new Error(`invalid arguments: ${invalid}`)
      const invocation = context.mcpInvocations?.[tool.name] ?? context.mcpInvocations?.[tool.mcpName]
      if (tool.protected && invocation === undefined) {
        throw new Error(`authorisation required: ${tool.name} is a protected tool; the user's app must send a UCAN ` +
          `invocation for it in mcpInvocations["${tool.name}"] with the message`)
      }
      const result = await connection.call(tool, args, { signal: context.signal, timeoutMs, invocation })
      const text = resultText(result)
      if (result.isError === true) throw new Error(`${tool.name} failed: ${text === '' ? 'no details given' : text}`)
      return text
    }
  }
}

/**
 * Tools of the MCP servers in ORACLE_MCP_SERVERS, offered to the model as `<server>__<tool>`. The list
 * follows each server (refreshed when it announces a change); a server that is down has no tools until
 * it answers, and one that went away keeps its tools, which answer "unavailable" while it reconnects.
 */
export const mcpPlugin: PluginDefinition = {
  name: 'mcp',
  description: 'Tools of remote MCP servers (Streamable HTTP), UCAN-protected ones with the client\'s invocations',
  attributes: {
    visibility: 'always',
    stability: 'beta',
    category: 'integration',
    defaultEnabled: true,
    dependencies: [],
    requiredEnv: ['ORACLE_MCP_SERVERS']
  },
  health: 'mcpServers',
  async setup (context) {
    const timeoutMs = context.config.TOOL_TIMEOUT_MS
    const connections = mcpServers(context.config.ORACLE_MCP_SERVERS)
      .map((server) => createMcpConnection(server, { log: context.log }))
    const started = Promise.all(connections.map(async (c) => { await c.start() }))
    await Promise.race([started, new Promise((resolve) => setTimeout(resolve, START_WAIT_MS).unref())])
    return {
      // Read at every turn, so the model sees the servers' current lists.
      get tools () {
        return connections.flatMap((c) => c.tools().map((tool) => serverTool(c, tool, timeoutMs)))
      },
      async health () {
        const results = await Promise.allSettled(connections.map(async (c) => { await c.ping(1500) }))
        const down = connections.filter((_c, i) => results[i]?.status === 'rejected').map((c) => c.server.name)
        if (down.length === 0) return
        throw Object.assign(new Error('MCP servers down'), { healthState: `disconnected: ${down.join(', ')}` })
      },
      async close () {
        await Promise.all(connections.map(async (c) => { await c.close() }))
      }
    }
  }
}
