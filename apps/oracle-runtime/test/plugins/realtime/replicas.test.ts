import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { until } from '@impact/service-kit/testing'
import { createRedisState } from '@impact/shared-state'
import { createHarness, type Harness, type TestUser } from '../../support/harness.ts'
import { startLoopbackLlm, type LoopbackLlm } from '../../support/loopback-llm.ts'
import { streamMessage } from '../../support/sse-client.ts'
import { connectSocket, openWs } from '../../support/socket-client.ts'

const servers = (process.env.DATABASE_URL ?? '') !== '' && (process.env.REDIS_URL ?? '') !== ''

// Two replicas need a shared database and a shared Redis: this runs in the server pass.
describe.runIf(servers)('WebSocket gateway across two replicas on one PostgreSQL and one Redis', () => {
  let llm: LoopbackLlm
  let a: Harness
  let b: Harness
  let baseA: string
  let baseB: string
  let user: TestUser
  let redis: ReturnType<typeof createRedisState>
  const subscribers = async (id: string) => {
    const [, count] = await redis.client.pubsub('NUMSUB', `${a.shared.prefix}rt:${id}`) as [string, number]
    return Number(count)
  }

  beforeAll(async () => {
    llm = await startLoopbackLlm()
    const env = { LLM_BASE_URL: llm.url, BROWSER_TOOL_TIMEOUT_MS: '5000', ACTION_TIMEOUT_MS: '5000' }
    a = await createHarness(env)
    b = await createHarness({ ...env, ORACLE_PRIVATE_KEY: a.oracleKey }, {}, a.shared)
    baseA = await a.app.listen({ host: '127.0.0.1', port: 0 })
    baseB = await b.app.listen({ host: '127.0.0.1', port: 0 })
    user = await a.user()
    redis = createRedisState({ url: process.env.REDIS_URL as string, prefix: '' })
  })
  afterAll(async () => {
    await redis?.close()
    await b?.close()
    await a?.close()
    await llm?.close()
  })

  it('delivers the events of a turn running on A to sockets on A and B, and routes ' +
    "B's tool result back to A", async () => {
    const id = await a.newSession(user.headers)
    const onA = await connectSocket(baseA, { sessionId: id, auth: { invocation: user.invocation } })
    const onB = await connectSocket(baseB, { sessionId: id, auth: { invocation: user.invocation } })
    const wsOnB = openWs(baseB, `/ws?sessionId=${id}`, user.headers)
    await wsOnB.next('connected')
    onB.on('browser_tool_call', (call: { toolCallId: string, sessionId: string }) => {
      onB.emit('tool_result', { toolCallId: call.toolCallId, sessionId: call.sessionId, result: { answeredBy: 'B' } })
    })
    llm.enqueue({ toolCalls: [{ id: 'call_rep', name: 'locate', args: {} }] }, { content: ['You are on B.'] })
    const res = await streamMessage(baseA, id, user.headers, {
      message: 'where?',
      tools: [{ name: 'locate', description: 'Where the user is', schema: {} }]
    })
    expect(res.frames.find((f) => f.event === 'tool_call' && f.data.status === 'done')?.data.output).toBe(
      '{"answeredBy":"B"}'
    )

    const expected = ['connected', 'tool_call', 'browser_tool_call', 'tool_call', 'message_cache_invalidation']
    for (const client of [onA, onB, wsOnB]) {
      await client.next('message_cache_invalidation')
      expect(client.events.map((e) => e.event)).toEqual(expected)
    }
    expect(onB.events.slice(1)).toEqual(onA.events.slice(1))
    onA.disconnect()
    onB.disconnect()
    wsOnB.ws.close()
  })

  it('round-trips an AG-UI action answered on B for a turn on A', async () => {
    const id = await a.newSession(user.headers)
    const onB = await connectSocket(baseB, { sessionId: id, auth: { ucanDelegation: user.delegation } })
    onB.on('action_call', (call: { toolCallId: string, sessionId: string }) => {
      onB.emit('action_call_result', {
        sessionId: call.sessionId,
        toolCallId: call.toolCallId,
        result: { success: true }
      })
    })
    llm.enqueue({ toolCalls: [{ id: 'call_act', name: 'open_modal', args: { id: 2 } }] }, { content: ['Opened.'] })
    const res = await streamMessage(baseA, id, user.headers, {
      message: 'open',
      agActions: [{ name: 'open_modal', description: 'Opens a modal', schema: {}, hasRender: false }]
    })
    expect(res.frames.find((f) => f.event === 'action_call' && f.data.status === 'done')?.data.output).toBe(
      '{"success":true}'
    )
    onB.disconnect()
  })

  it('holds a session channel on a replica only while it has a connection there', async () => {
    const id = await a.newSession(user.headers)
    expect(await subscribers(id)).toBe(0)
    const first = await connectSocket(baseB, { sessionId: id, auth: { invocation: user.invocation } })
    const second = await connectSocket(baseB, { sessionId: id, auth: { invocation: user.invocation } })
    const onA = await connectSocket(baseA, { sessionId: id, auth: { invocation: user.invocation } })
    expect(await subscribers(id)).toBe(2)
    first.disconnect()
    onA.disconnect()
    await until(async () => await subscribers(id) === 1)
    second.disconnect()
    await until(async () => await subscribers(id) === 0)
  })
})
