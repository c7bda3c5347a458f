import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server as HttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import {
  CallToolRequestSchema, isInitializeRequest, ListToolsRequestSchema, type CallToolResult, type Tool
} from '@modelcontextprotocol/sdk/types.js'

export interface McpTestTool extends Tool {
  run: (args: Record<string, unknown>, headers: IncomingMessage['headers'], signal: AbortSignal) =>
    CallToolResult | Promise<CallToolResult>
}

export interface McpCall {
  name: string
  args: unknown
  authorization: string | undefined
  authType: string | undefined
}

export interface McpTestServer {
  url: string
  port: number
  /** Every tools/call the server received, with the auth headers of its HTTP request. */
  calls: McpCall[]
  /** Adds a tool and tells connected clients the list changed. */
  addTool: (tool: McpTestTool) => Promise<void>
  close: () => Promise<void>
}

const readJson = async (req: IncomingMessage): Promise<unknown> => {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString('utf8'))
}

/**
 * A real MCP server on 127.0.0.1 over Streamable HTTP (stateful sessions, so it can announce tool list
 * changes), built with the SDK's Server and StreamableHTTPServerTransport on node:http.
 */
export async function startMcpServer (tools: McpTestTool[], port = 0): Promise<McpTestServer> {
  const catalog = [...tools]
  const calls: McpCall[] = []
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport, server: Server }>()

  const newSession = async () => {
    const capabilities = { tools: { listChanged: true } }
    const server = new Server({ name: 'test-mcp', version: '1.0.0' }, { capabilities })
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: catalog.map(({ run: _run, ...tool }) => tool)
    }))
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const headers = extra.requestInfo?.headers ?? {}
      const header = (name: string) => { const v = headers[name]; return Array.isArray(v) ? v[0] : v }
      calls.push({
        name: request.params.name,
        args: request.params.arguments,
        authorization: header('authorization'),
        authType: header('x-auth-type')
      })
      const tool = catalog.find((t) => t.name === request.params.name)
      if (tool === undefined) {
        return { content: [{ type: 'text', text: `unknown tool ${request.params.name}` }], isError: true }
      }
      return await tool.run(request.params.arguments ?? {}, headers, extra.signal)
    })
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => { sessions.set(id, { transport, server }) }
    })
    transport.onclose = () => { if (transport.sessionId !== undefined) sessions.delete(transport.sessionId) }
    await server.connect(transport)
    return transport
  }

  const http: HttpServer = createServer((req, res) => {
    const handle = async () => {
      const body = req.method === 'POST' ? await readJson(req) : undefined
      const id = req.headers['mcp-session-id']
      const known = typeof id === 'string' ? sessions.get(id)?.transport : undefined
      if (known !== undefined) { await known.handleRequest(req, res, body); return }
      if (req.method === 'POST' && isInitializeRequest(body)) {
        await (await newSession()).handleRequest(req, res, body)
        return
      }
      res.writeHead(typeof id === 'string' ? 404 : 400, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'No valid session' }, id: null }))
    }
    handle().catch((err: unknown) => { res.destroy(err as Error) })
  })
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve))
  const address = http.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${address.port}/mcp`,
    port: address.port,
    calls,
    async addTool (tool) {
      catalog.push(tool)
      await Promise.all([...sessions.values()].map(async ({ server }) => { await server.sendToolListChanged() }))
    },
    async close () {
      await Promise.all([...sessions.values()].map(async ({ transport }) => { await transport.close() }))
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    }
  }
}
