import { AsyncLocalStorage } from 'node:async_hooks'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ErrorCode, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js'
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv'
import type { FastifyBaseLogger } from 'fastify'
import { namespacedToolName } from './names.ts'
import type { McpServerConfig } from './servers.ts'

export interface McpTool {
  /** What the model calls it: `<server>__<tool>`. */
  name: string
  /** Its name on the MCP server. */
  mcpName: string
  description: string
  inputSchema: Record<string, unknown>
  /** Why the arguments do not fit the input schema, or undefined when they do. */
  invalid: (args: unknown) => string | undefined
  protected: boolean
  /** The call waits for the user's approval (the server's `approval` setting applied to the tool's annotations). */
  changesState: boolean
  /** The server says the tool may delete or overwrite data (`destructiveHint`). */
  destructive: boolean
}

/**
 * MCP annotations are hints, and an unannotated tool counts as "may write" by the MCP spec's defaults. Few
 * servers annotate, so asking for every such call would ask for reads too: with `annotations` only what a
 * server says writes (readOnlyHint: false, or destructiveHint: true) waits for approval; `always` is for
 * servers that do not annotate but do write.
 */
export function mcpChangesState (tool: Pick<Tool, 'annotations'>, approval: McpServerConfig['approval']): boolean {
  if (approval === 'always' || approval === 'never') return approval === 'always'
  const hints = tool.annotations
  if (hints?.readOnlyHint === true) return false
  return hints?.readOnlyHint === false || hints?.destructiveHint === true
}

export type McpState = 'connecting' | 'connected' | 'disconnected'

/** The server cannot be reached (down, restarted, session lost): the connection is being re-made. */
export class McpUnavailableError extends Error {}
/** The server answered the call's HTTP request with 401/403: the forwarded authorisation was refused. */
export class McpRefusedError extends Error {}

export interface McpConnectionOptions {
  log: FastifyBaseLogger
  /** First reconnection delay; it doubles up to `maxBackoffMs`. */
  backoffMs?: number
  maxBackoffMs?: number
  /** Limit of the handshake and of listing tools. */
  connectTimeoutMs?: number
}

const CLIENT_INFO = { name: 'oracle-runtime', version: '0.1.0' }

/**
 * One MCP server over Streamable HTTP: connects, lists its tools (again on `notifications/tools/list_changed`),
 * and when it goes away reconnects with backoff while its tools answer "unavailable". A call made with a UCAN
 * invocation carries it on that call's HTTP request only, as `Authorization: Bearer` + `X-Auth-Type: ucan`.
 */
export function createMcpConnection (server: McpServerConfig, options: McpConnectionOptions) {
  const log = options.log.child({ mcpServer: server.name })
  const backoffMs = options.backoffMs ?? 500
  const maxBackoffMs = options.maxBackoffMs ?? 30_000
  const connectTimeoutMs = options.connectTimeoutMs ?? 5000
  // The invocation of the call being sent; the fetch below adds it to that call's request only.
  const invocation = new AsyncLocalStorage<string>()
  const fetchWithInvocation = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const token = invocation.getStore()
    if (token === undefined) return await fetch(url, init)
    const headers = new Headers(init?.headers)
    headers.set('authorization', `Bearer ${token}`)
    headers.set('x-auth-type', 'ucan')
    return await fetch(url, { ...init, headers })
  }
  const isProtected = (mcpName: string) =>
    server.protected === true || (Array.isArray(server.protected) && server.protected.includes(mcpName))

  let client: Client | undefined
  let state: McpState = 'connecting'
  let tools: McpTool[] = []
  let attempt = 0
  let timer: NodeJS.Timeout | undefined
  let closed = false
  let firstAttempt: Promise<void> | undefined

  const describe = (tool: Tool, validators: AjvJsonSchemaValidator): McpTool => {
    const { $schema: _schema, ...inputSchema } = tool.inputSchema as Record<string, unknown>
    let invalid: McpTool['invalid'] = () => undefined
    try {
      const validate = validators.getValidator(inputSchema as never)
      invalid = (args) => validate(args).errorMessage
    } catch (err) {
      // A schema this side cannot compile is left to the server, which checks its own arguments.
      log.warn({ err, tool: tool.name }, 'MCP tool input schema does not compile')
    }
    return {
      name: namespacedToolName(server.name, tool.name),
      mcpName: tool.name,
      description: tool.description ?? tool.title ?? `Tool ${tool.name} of the MCP server ${server.name}`,
      inputSchema,
      invalid,
      protected: isProtected(tool.name),
      changesState: mcpChangesState(tool, server.approval),
      destructive: tool.annotations?.readOnlyHint !== true && tool.annotations?.destructiveHint === true
    }
  }

  async function listAll (c: Client): Promise<McpTool[]> {
    const listed: McpTool[] = []
    // One compiler per listing: its cache goes with the list it compiled.
    const validators = new AjvJsonSchemaValidator()
    let cursor: string | undefined
    do {
      const page = await c.listTools(cursor === undefined ? {} : { cursor }, { timeout: connectTimeoutMs })
      listed.push(...page.tools.map((tool) => describe(tool, validators)))
      cursor = page.nextCursor
    } while (cursor !== undefined)
    return listed
  }

  async function refresh (c: Client) {
    try {
      if (c !== client) return
      tools = await listAll(c)
      log.info({ tools: tools.length }, 'MCP tools changed')
    } catch (err) {
      log.warn({ err }, 'MCP tool list refresh failed')
    }
  }

  async function connect (): Promise<void> {
    const next = new Client(CLIENT_INFO, {
      listChanged: {
        tools: { autoRefresh: false, debounceMs: 100, onChanged: () => { refresh(next).catch(() => {}) } }
      }
    })
    const transport = new StreamableHTTPClientTransport(new URL(server.url), {
      fetch: fetchWithInvocation,
      requestInit: { headers: server.headers ?? {} },
      // Reconnection is ours (a new session), not the transport's retry of its event stream.
      reconnectionOptions: {
        maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1
      }
    })
    try {
      await next.connect(transport, { timeout: connectTimeoutMs })
      const listed = await listAll(next)
      if (closed) { await next.close(); return }
      client = next
      tools = listed
      state = 'connected'
      attempt = 0
      next.onclose = () => { if (client === next) lost('connection closed') }
      log.info({ tools: listed.length }, 'MCP server connected')
    } catch (err) {
      await next.close().catch(() => {})
      if (attempt === 0) log.warn({ err }, 'MCP server unreachable; retrying with backoff')
      state = 'disconnected'
      schedule()
    }
  }

  function schedule () {
    if (closed || timer !== undefined) return
    const delay = Math.min(maxBackoffMs, backoffMs * 2 ** attempt)
    attempt++
    timer = setTimeout(() => {
      timer = undefined
      state = 'connecting'
      connect().catch(() => {})
    }, delay * (0.8 + Math.random() * 0.4))
    timer.unref()
  }

  /** Drops the current session; its tools stay listed and answer "unavailable" until the server is back. */
  function lost (reason: string) {
    const gone = client
    if (gone === undefined) return
    client = undefined
    state = 'disconnected'
    log.warn({ reason }, 'MCP server went away; reconnecting')
    gone.close().catch(() => {})
    schedule()
  }

  // Only an answer of the server itself (an MCP error other than a closed connection) leaves the session standing.
  const answeredByServer = (error: unknown) => error instanceof McpError && error.code !== ErrorCode.ConnectionClosed

  return {
    server,
    state: () => state,
    tools: () => tools,
    /** Starts connecting; resolves after the first attempt, whatever its outcome. */
    async start () {
      firstAttempt ??= connect()
      await firstAttempt
    },
    async call (
      tool: McpTool,
      args: Record<string, unknown>,
      call: { signal: AbortSignal, timeoutMs: number, invocation?: string | undefined }
    ): Promise<CallToolResult> {
      const current = client
      if (current === undefined) {
        throw new McpUnavailableError(`the MCP server ${server.name} is unavailable right now (reconnecting); ` +
          'try again later')
      }
      const send = async () => await current.callTool(
        { name: tool.mcpName, arguments: args },
        undefined,
        { signal: call.signal, timeout: call.timeoutMs }
      ) as CallToolResult
      try {
        return call.invocation === undefined ? await send() : await invocation.run(call.invocation, send)
      } catch (error) {
        if (call.signal.aborted || answeredByServer(error)) throw error
        if (error instanceof StreamableHTTPError && (error.code === 401 || error.code === 403)) {
          throw new McpRefusedError(`the MCP server ${server.name} refused the authorisation (HTTP ${error.code})`)
        }
        lost((error as Error).message)
        throw new McpUnavailableError(`the MCP server ${server.name} could not be reached; try again later`)
      }
    },
    /** Health: a ping on the live session; a failed one starts reconnecting. */
    async ping (timeoutMs: number) {
      const current = client
      if (current === undefined) throw new McpUnavailableError(`${server.name} ${state}`)
      try {
        await current.ping({ timeout: timeoutMs })
      } catch (error) {
        lost((error as Error).message)
        throw error
      }
    },
    async close () {
      closed = true
      clearTimeout(timer)
      const current = client
      client = undefined
      await current?.close().catch(() => {})
    }
  }
}

export type McpConnection = ReturnType<typeof createMcpConnection>
