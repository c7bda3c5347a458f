import { beforeAll, describe, expect, it } from 'vitest'
import { startMetricsListener } from '@impact/service-kit'
import { scrapeMetrics, scrapeWhen, until } from '@impact/service-kit/testing'
import { fileHarness, type TestUser } from './support/harness.ts'
import { openStream, streamMessage } from './support/sse-client.ts'
import { connectSocket } from './support/socket-client.ts'
import { stovePlugin } from './support/stove-plugin.ts'

const stoves = stovePlugin()

describe('oracle-runtime metrics', () => {
  const t = fileHarness({}, { llm: true, listen: true, plugins: [stoves.plugin] })
  let alice: TestUser
  let metricsUrl: string
  beforeAll(async () => {
    alice = await t.h.user()
    metricsUrl = (await startMetricsListener(t.h.app, { host: '127.0.0.1', port: 0 }))!
  })
  const delta = async <T>(work: () => Promise<T>, settle: { name: string, labels: Record<string, string> }) => {
    const before = await scrapeMetrics(metricsUrl)
    await work()
    const after = await scrapeWhen(metricsUrl, settle.name, settle.labels, before.value(settle.name, settle.labels) + 1)
    return (name: string, labels: Record<string, string> = {}) => after.value(name, labels) - before.value(name, labels)
  }

  it('counts a turn, its time to first token and the tokens the provider reported', async () => {
    const sessionId = await t.h.newSession(alice.headers)
    t.llm.enqueue({ content: ['Hello ', 'there ', 'friend'] })
    const changed = await delta(async () => {
      const streamed = await streamMessage(t.base, sessionId, alice.headers, { message: 'say hello to me' })
      expect(streamed.status).toBe(200)
    }, { name: 'oracle_turns_total', labels: { outcome: 'completed' } })
    expect(changed('oracle_turns_total', { outcome: 'completed' })).toBe(1)
    expect(changed('oracle_turn_first_token_seconds')).toBe(1)
    expect(changed('oracle_llm_tokens_total', { direction: 'output' })).toBe(3)
    expect(changed('oracle_llm_tokens_total', { direction: 'input' })).toBeGreaterThan(4)
  })

  it('counts tool calls by server tool, client tools as one label, and approvals', async () => {
    const sessionId = await t.h.newSession(alice.headers)
    t.llm.enqueue(
      { toolCalls: [{ id: 'call_count', name: 'count_stoves', args: {} }] },
      { toolCalls: [{ id: 'call_reg', name: 'register_stove', args: { serial: 'ST-9' } }] },
      { content: ['Registered.'] }
    )
    const changed = await delta(async () => {
      const stream = await openStream(t.base, sessionId, alice.headers, { message: 'count then register' })
      await stream.until('approval_request')
      const decided = await t.h.app.inject({
        method: 'POST', url: '/approvals/call_reg', headers: alice.headers, payload: { sessionId, approved: true }
      })
      expect(decided.statusCode).toBe(200)
      await stream.rest()
    }, { name: 'oracle_tool_calls_total', labels: { tool: 'register_stove' } })
    expect(changed('oracle_tool_calls_total', { tool: 'count_stoves', outcome: 'ok' })).toBe(1)
    expect(changed('oracle_tool_calls_total', { tool: 'register_stove', outcome: 'ok' })).toBe(1)
    expect(changed('oracle_approvals_total', { event: 'requested' })).toBe(1)
    expect(changed('oracle_approvals_total', { event: 'approved' })).toBe(1)
    expect(changed('oracle_turns_total', { outcome: 'completed' })).toBe(1)
  })

  it('shows open sockets and SSE streams of this replica', async () => {
    const sessionId = await t.h.newSession(alice.headers)
    const socket = await connectSocket(t.base, {
      sessionId, auth: { invocation: alice.invocation, ucanDelegation: alice.delegation }
    })
    t.llm.enqueue({ content: Array.from({ length: 100 }, (_, i) => `w${i} `), delayMs: 20 })
    const stream = await openStream(t.base, sessionId, alice.headers, { message: 'a long one' })
    await stream.until('message')
    const open = await scrapeMetrics(metricsUrl)
    expect(open.value('oracle_sse_streams')).toBe(1)
    expect(open.value('oracle_realtime_connections')).toBe(1)
    socket.disconnect()
    stream.disconnect()
    await until(async () => {
      const closed = await scrapeMetrics(metricsUrl)
      return closed.value('oracle_sse_streams') === 0 && closed.value('oracle_realtime_connections') === 0
    })
  })

  it('labels routes by template and serves no /metrics on the app port', async () => {
    const scrape = await scrapeMetrics(metricsUrl)
    const routes = scrape.labelSets('http_request_duration_seconds').map((labels) => labels.route)
    expect(routes).toContain('/messages/:sessionId')
    expect(routes.some((route) => route?.includes('did:'))).toBe(false)
    expect((await fetch(`${t.base}/metrics`)).status).toBe(404)
  })
})
