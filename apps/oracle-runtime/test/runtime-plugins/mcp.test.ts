import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError } from '@impact/service-kit'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { namespacedToolName, TOOL_NAME } from '../../src/services/mcp/names.ts'
import { createHarness, type Harness, type TestUser } from '../support/harness.ts'
import { startLoopbackLlm, type LoopbackLlm } from '../support/loopback-llm.ts'
import { startMcpServer, type McpTestServer, type McpTestTool } from '../support/mcp-server.ts'
import { openStream } from '../support/sse-client.ts'

const getStove: McpTestTool = {
  name: 'get_stove',
  description: 'A stove\'s verification status',
  inputSchema: {
    type: 'object',
    properties: { id: { type: 'string', description: 'Stove serial number' } },
    required: ['id']
  },
  run: (args) => args.id === 'S-404'
    ? { content: [{ type: 'text', text: 'no stove S-404' }], isError: true }
    : {
        content: [{ type: 'text', text: `Stove ${String(args.id)} is verified` }],
        structuredContent: { id: args.id, verified: true }
      }
}
const INVOCATION = Buffer.from('a UCAN invocation CAR for register_stove').toString('base64')
const registerStove: McpTestTool = {
  name: 'register_stove',
  description: 'Registers a stove for the user',
  inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  run: (args, headers) => headers.authorization === `Bearer ${INVOCATION}` && headers['x-auth-type'] === 'ucan'
    ? { content: [{ type: 'text', text: `Registered ${String(args.id)}` }] }
    : { content: [{ type: 'text', text: 'unauthorised: no valid UCAN invocation' }], isError: true }
}
const dotted: McpTestTool = {
  name: 'stove.history',
  description: 'A stove\'s events',
  inputSchema: { type: 'object', properties: {} },
  run: () => ({ content: [{ type: 'text', text: 'no events' }] })
}

interface McpServerEntry { name: string, url: string, protected?: boolean | string[], approval?: string }
const servers = (...list: McpServerEntry[]) =>
  ({ ORACLE_MCP_SERVERS: JSON.stringify(list) })
const sleep = async (ms: number) => { await new Promise((resolve) => setTimeout(resolve, ms)) }
const HOOK_MS = 120_000
/** Start-up waits only a moment for MCP servers; on a loaded machine the first connection can take longer. */
const connected = async (h: Harness) => {
  const health = async () => (await h.app.inject({ method: 'GET', url: '/health' })).json()
  await until(health, (b) => b.mcpServers === 'connected')
}
async function until<T> (read: () => Promise<T>, ok: (value: T) => boolean, ms = 15_000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const value = await read()
    if (ok(value) || Date.now() > end) return value
    await sleep(100)
  }
}

describe('ORACLE_MCP_SERVERS', () => {
  it('refuses a malformed list, naming the key and the place, without echoing headers', () => {
    const bad = [
      'not json',
      JSON.stringify([{ name: 'stoves', url: 'ftp://x' }]),
      JSON.stringify([{ name: 'a__b', url: 'http://x/mcp' }]),
      JSON.stringify([{ name: 's', url: 'http://x/mcp', extra: 1 }]),
      JSON.stringify([{ name: 's', url: 'http://x/mcp' }, { name: 's', url: 'http://y/mcp' }])
    ]
    for (const value of bad) {
      expect(() => loadConfig({ ORACLE_MCP_SERVERS: value })).toThrow(ConfigError)
      expect(() => loadConfig({ ORACLE_MCP_SERVERS: value })).toThrow(/ORACLE_MCP_SERVERS/)
    }
    const secret = JSON.stringify([{ name: 's', url: 'nope', headers: { 'x-api-key': 'secret-key-123' } }])
    expect(() => loadConfig({ ORACLE_MCP_SERVERS: secret })).toThrow(/ORACLE_MCP_SERVERS at \/0\/url/)
    expect(() => loadConfig({ ORACLE_MCP_SERVERS: secret })).not.toThrow(/secret-key-123/)
  })
})

describe('the mcp plugin', () => {
  it('needs ORACLE_MCP_SERVERS when forced on', async () => {
    const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: 'memory://', ORACLE_FEATURES: 'mcp' })
    await expect(buildApp(config)).rejects.toThrow('plugin mcp is enabled but ORACLE_MCP_SERVERS is not set')
  })
})

describe('MCP tool names', () => {
  it('are <server>__<tool>, within what providers accept, and distinct', () => {
    expect(namespacedToolName('stoves', 'get_stove')).toBe('stoves__get_stove')
    const names = [
      namespacedToolName('stoves', 'stove.history'),
      namespacedToolName('stoves', 'stove_history'),
      namespacedToolName('stoves', 'x'.repeat(128)),
      namespacedToolName('stoves', `${'x'.repeat(127)}y`)
    ]
    for (const name of names) expect(name).toMatch(TOOL_NAME)
    expect(names[0]).toMatch(/^stoves__stove_history_[0-9a-f]{8}$/)
    expect(new Set(names).size).toBe(names.length)
  })
})

// Apps are built inside these tests: a loaded machine needs more than the default 5 s for one.
/** A loopback MCP server with `tools` and an app listening on loopback that uses it (`list` of server entries). */
function mcpApp (tools: McpTestTool[], list: (url: string) => McpServerEntry[]) {
  const started: Partial<{ mcp: McpTestServer, h: Harness, user: TestUser, base: string }> = {}
  beforeAll(async () => {
    started.mcp = await startMcpServer(tools)
    started.h = await createHarness(servers(...list(started.mcp.url)))
    started.base = await started.h.app.listen({ host: '127.0.0.1', port: 0 })
    started.user = await started.h.user()
    await connected(started.h)
  }, HOOK_MS)
  afterAll(async () => {
    await started.h?.close()
    await started.mcp?.close()
  }, HOOK_MS)
  return started as Required<typeof started>
}

describe('MCP tools in a turn', { timeout: 60_000 }, () => {
  const t = mcpApp([getStove, registerStove, dotted], (url) => [{ name: 'stoves', url, protected: ['register_stove'] }])
  const send = async (sessionId: string, payload: Record<string, unknown>) =>
    await t.h.app.inject({ method: 'POST', url: `/messages/${sessionId}`, headers: t.user.headers, payload })

  it('runs an MCP tool through the offline agent and stores the call', async () => {
    const id = await t.h.newSession(t.user.headers)
    const res = await t.h.send(t.user.headers, id, 'check stoves__get_stove {"id":"S-1"}')
    expect(res.statusCode).toBe(200)
    expect(res.json().message.content).toContain('stoves__get_stove: Stove S-1 is verified')
    expect(t.mcp.calls.at(-1)).toMatchObject({ name: 'get_stove', args: { id: 'S-1' }, authorization: undefined })
    const stored = await t.h.transcript(t.user.headers, id)
    expect(stored[1].toolCalls[0]).toMatchObject({ name: 'stoves__get_stove', status: 'done' })
  })

  it('gives the model the server\'s error when the tool fails', async () => {
    const id = await t.h.newSession(t.user.headers)
    const res = await t.h.send(t.user.headers, id, 'stoves__get_stove {"id":"S-404"}')
    expect(res.json().message.content).toContain('stoves__get_stove: Error: stoves__get_stove failed: no stove S-404')
    expect((await t.h.transcript(t.user.headers, id))[1].toolCalls[0].status).toBe('error')
  })

  it('checks arguments against the tool\'s input schema before calling the server', async () => {
    const id = await t.h.newSession(t.user.headers)
    const before = t.mcp.calls.length
    const res = await t.h.send(t.user.headers, id, 'stoves__get_stove {"serial":"S-1"}')
    expect(res.json().message.content).toMatch(/stoves__get_stove: Error: invalid arguments: .*id/)
    expect(t.mcp.calls.length).toBe(before)
  })

  it('answers "authorisation required" for a protected tool without an invocation, calling nothing', async () => {
    const id = await t.h.newSession(t.user.headers)
    const before = t.mcp.calls.length
    const res = await t.h.send(t.user.headers, id, 'stoves__register_stove {"id":"S-2"}')
    expect(res.json().message.content).toMatch(/authorisation required: stoves__register_stove is a protected tool/)
    expect(t.mcp.calls.length).toBe(before)
  })

  it('forwards the client\'s invocation to the server on that call only', async () => {
    const id = await t.h.newSession(t.user.headers)
    const res = await send(id, {
      message: 'stoves__register_stove {"id":"S-3"}',
      mcpInvocations: { stoves__register_stove: INVOCATION }
    })
    expect(res.json().message.content).toContain('stoves__register_stove: Registered S-3')
    expect(t.mcp.calls.at(-1)).toEqual({
      name: 'register_stove', args: { id: 'S-3' }, authorization: `Bearer ${INVOCATION}`, authType: 'ucan'
    })
    await t.h.send(t.user.headers, id, 'stoves__get_stove {"id":"S-3"}')
    expect(t.mcp.calls.at(-1)).toMatchObject({ name: 'get_stove', authorization: undefined, authType: undefined })
  })

  it('offers a tool whose name providers refuse under a safe name', async () => {
    const name = namespacedToolName('stoves', 'stove.history')
    const id = await t.h.newSession(t.user.headers)
    const res = await t.h.send(t.user.headers, id, name)
    expect(res.json().message.content).toContain(`${name}: no events`)
    expect(t.mcp.calls.at(-1)?.name).toBe('stove.history')
  })

  it('picks up a tool the server adds (notifications/tools/list_changed)', async () => {
    await t.mcp.addTool({
      name: 'count_stoves',
      description: 'How many stoves',
      inputSchema: { type: 'object', properties: {} },
      run: () => ({ content: [{ type: 'text', text: '42 stoves' }] })
    })
    const id = await t.h.newSession(t.user.headers)
    const res = await until(
      async () => await t.h.send(t.user.headers, id, 'stoves__count_stoves'),
      (r) => (r.json().message.content as string).includes('42 stoves')
    )
    expect(res.json().message.content).toContain('stoves__count_stoves: 42 stoves')
  })

  it('reports the server in /health', async () => {
    const res = await t.h.app.inject({ method: 'GET', url: '/health' })
    expect(res.json()).toMatchObject({ status: 'ok', mcpServers: 'connected' })
  })
})

describe('MCP tools whose annotations say they write', { timeout: 60_000 }, () => {
  const retireStove: McpTestTool = {
    name: 'retire_stove',
    description: 'Takes a stove out of service',
    annotations: { readOnlyHint: false, destructiveHint: true },
    inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    run: (args) => ({ content: [{ type: 'text', text: `Retired ${String(args.id)}` }] })
  }
  const readStove: McpTestTool = { ...getStove, annotations: { readOnlyHint: true } }
  const t = mcpApp([retireStove, readStove], (url) => [
    { name: 'stoves', url },
    { name: 'trusted', url, approval: 'never' }
  ])

  it('wait for the user\'s approval, and a denied call never reaches the server', async () => {
    const id = await t.h.newSession(t.user.headers)
    const before = t.mcp.calls.length
    const stream = await openStream(t.base, id, t.user.headers, { message: 'stoves__retire_stove {"id":"S-5"}' })
    const asked = (await stream.until('approval_request')).find((f) => f.event === 'approval_request')?.data
    expect(asked).toMatchObject({
      toolName: 'stoves__retire_stove',
      summary: 'May delete or overwrite data: run retire_stove on the MCP server stoves with {"id":"S-5"}'
    })
    const denied = await t.h.app.inject({
      method: 'POST',
      url: `/approvals/${String(asked.toolCallId)}`,
      headers: t.user.headers,
      payload: { sessionId: id, approved: false }
    })
    expect(denied.statusCode).toBe(200)
    await stream.rest()
    expect(t.mcp.calls.length).toBe(before)
    expect((await t.h.transcript(t.user.headers, id))[1].toolCalls[0].output)
      .toBe('The user declined to run stoves__retire_stove; it was not run.')
  })

  it('run read-only tools, and every tool of a server set to approval "never", without asking', async () => {
    const id = await t.h.newSession(t.user.headers)
    expect((await t.h.send(t.user.headers, id, 'stoves__get_stove {"id":"S-6"}')).json().message.content)
      .toContain('Stove S-6 is verified')
    expect((await t.h.send(t.user.headers, id, 'trusted__retire_stove {"id":"S-6"}')).json().message.content)
      .toContain('trusted__retire_stove: Retired S-6')
    expect(t.mcp.calls.at(-1)).toMatchObject({ name: 'retire_stove', args: { id: 'S-6' } })
  })
})

describe('MCP tools and a model on the wire', { timeout: 60_000 }, () => {
  const cancelled: string[] = []
  const slow: McpTestTool = {
    name: 'slow',
    description: 'Never answers before it is cancelled',
    inputSchema: { type: 'object', properties: {} },
    run: async (_args, _headers, signal) => await new Promise((resolve) => {
      signal.addEventListener('abort', () => {
        cancelled.push('slow')
        resolve({ content: [{ type: 'text', text: 'cancelled' }] })
      })
    })
  }
  let mcp: McpTestServer
  let llm: LoopbackLlm
  let h: Harness

  beforeAll(async () => {
    mcp = await startMcpServer([getStove, slow])
    llm = await startLoopbackLlm()
    const env = { LLM_BASE_URL: llm.url, TOOL_TIMEOUT_MS: '2000', ...servers({ name: 'stoves', url: mcp.url }) }
    h = await createHarness(env)
    await connected(h)
  }, HOOK_MS)
  afterAll(async () => {
    await h?.close()
    await llm?.close()
    await mcp?.close()
  }, HOOK_MS)

  it('offers the input schema as the server declares it and returns the result to the model', async () => {
    const user = await h.user()
    const id = await h.newSession(user.headers)
    llm.enqueue(
      { toolCalls: [{ id: 'call_mcp', name: 'stoves__get_stove', args: { id: 'S-9' } }] },
      { content: ['S-9 is verified.'] }
    )
    const res = await h.send(user.headers, id, 'is S-9 verified?')
    expect(res.json().message.content).toBe('S-9 is verified.')
    const offered = llm.requests.at(-2)?.body.tools
      .find((t: any) => t.function.name === 'stoves__get_stove')
    expect(offered.function).toEqual({
      name: 'stoves__get_stove',
      description: 'A stove\'s verification status',
      parameters: getStove.inputSchema
    })
    expect(llm.requests.at(-1)?.body.messages.at(-1))
      .toEqual({ role: 'tool', tool_call_id: 'call_mcp', content: 'Stove S-9 is verified' })
  })
  it('stops a call at the tool deadline, cancels it on the server, and tells the model', async () => {
    const user = await h.user()
    const id = await h.newSession(user.headers)
    llm.enqueue({ toolCalls: [{ id: 'call_slow', name: 'stoves__slow', args: {} }] }, { content: ['Too slow.'] })
    const res = await h.send(user.headers, id, 'run the slow one')
    expect(res.json().message.content).toBe('Too slow.')
    expect(llm.requests.at(-1)?.body.messages.at(-1).content).toMatch(/did not finish within 2 s/)
    expect(await until(async () => cancelled, (list) => list.length > 0)).toEqual(['slow'])
  })
})

describe('an MCP server that is down', { timeout: 120_000 }, () => {
  it('does not stop the app; its tools appear once it starts and answer "unavailable" once it goes', async () => {
    const probe = await startMcpServer([])
    const { port, url } = probe
    await probe.close()
    const h = await createHarness(servers({ name: 'stoves', url }))
    let mcp: McpTestServer | undefined
    try {
      const user = await h.user()
      const id = await h.newSession(user.headers)
      const health = async () => (await h.app.inject({ method: 'GET', url: '/health' })).json()
      expect(await health()).toMatchObject({ status: 'degraded', mcpServers: 'disconnected: stoves' })
      const without = await h.send(user.headers, id, 'stoves__get_stove {"id":"S-1"}')
      expect(without.statusCode).toBe(200)
      expect(without.json().message.content).toMatch(/offline agent/)

      mcp = await startMcpServer([getStove], port)
      expect(await until(health, (b) => b.mcpServers === 'connected')).toMatchObject({ status: 'ok' })
      const up = await h.send(user.headers, id, 'stoves__get_stove {"id":"S-1"}')
      expect(up.json().message.content).toContain('Stove S-1 is verified')

      await mcp.close()
      const gone = await h.send(user.headers, id, 'stoves__get_stove {"id":"S-1"}')
      expect(gone.statusCode).toBe(200)
      expect(gone.json().message.content).toMatch(/the MCP server stoves (could not be reached|is unavailable)/)
      expect(await health()).toMatchObject({ status: 'degraded', mcpServers: 'disconnected: stoves' })
      expect((await h.send(user.headers, id, 'hello')).statusCode).toBe(200)
    } finally {
      await h.close()
      await mcp?.close()
    }
  })
})
