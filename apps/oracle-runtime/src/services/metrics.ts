import { Counter, Gauge, Histogram, type Registry } from '@impact/service-kit'
import type { LoadedPlugin } from '../runtime-plugins/types.ts'
import type { Approvals } from './approvals.ts'
import type { EventBus } from './event-bus.ts'
import type { createTurnService } from './turn-service.ts'

type ExecuteTurn = ReturnType<typeof createTurnService>

/** Tools a client declares (browser tools, actions) share one label: their names are the client's to choose. */
export const CLIENT_TOOL = 'client'

/**
 * The runtime's own metrics: turns by outcome, time to first token, tokens, tool calls, approvals, and the
 * open sockets and SSE streams of this replica. Tool labels are server tool names (the deployment's plugins).
 */
export function createOracleMetrics (registry: Registry, deps: {
  bus: Pick<EventBus, 'subscribe'>
  plugins: LoadedPlugin[]
  sockets: () => number
}) {
  const registers = [registry]
  const turns = new Counter({
    name: 'oracle_turns_total',
    help: 'Message turns by outcome: completed, aborted, failed (the model or agent failed), suspended ' +
      '(waiting for an approval), session_gone (deleted meanwhile), error (the turn threw)',
    labelNames: ['outcome'] as const,
    registers
  })
  const firstToken = new Histogram({
    name: 'oracle_turn_first_token_seconds',
    help: 'Time from the start of a turn to the first content or reasoning token streamed',
    buckets: [0.1, 0.25, 0.5, 1, 2, 3, 5, 8, 13, 20, 30],
    registers
  })
  const tokens = new Counter({
    name: 'oracle_llm_tokens_total',
    help: 'Tokens the model provider reported, by direction (input: prompt, output: completion)',
    labelNames: ['direction'] as const,
    registers
  })
  const toolCalls = new Counter({
    name: 'oracle_tool_calls_total',
    help: `Tool calls by tool (server tool name, or "${CLIENT_TOOL}" for browser tools and actions) and outcome`,
    labelNames: ['tool', 'outcome'] as const,
    registers
  })
  const approvals = new Counter({
    name: 'oracle_approvals_total',
    help: 'Tool approvals by event: requested, approved, denied',
    labelNames: ['event'] as const,
    registers
  })
  new Gauge({ // eslint-disable-line no-new
    name: 'oracle_realtime_connections',
    help: 'Socket.IO and WebSocket connections open on this replica',
    registers,
    collect () { this.set(deps.sockets()) }
  })
  const sse = new Gauge({ name: 'oracle_sse_streams', help: 'SSE answer streams open on this replica', registers })

  const serverTool = (name: string) =>
    deps.plugins.some(({ plugin }) => plugin.tools?.some((tool) => tool.name === name) === true)
  deps.bus.subscribe({}, (event) => {
    // The request goes out again with each change of its status; pending is the asking.
    if (event.name === 'approval_request' && event.data.status === 'pending') approvals.inc({ event: 'requested' })
    if (event.name !== 'tool_call') return
    const { toolName, status } = event.data as { toolName?: unknown, status?: unknown }
    if (status !== 'done' && status !== 'error') return
    const tool = typeof toolName === 'string' && serverTool(toolName) ? toolName : CLIENT_TOOL
    toolCalls.inc({ tool, outcome: status === 'done' ? 'ok' : 'error' })
  })

  return {
    /** The turn service, timed and counted. */
    turns: (execute: ExecuteTurn): ExecuteTurn => async (request, turn) => {
      const started = performance.now()
      let streaming = false
      const off = deps.bus.subscribe({ sessionId: request.sessionId, requestId: request.requestId }, (event) => {
        if (streaming || (event.name !== 'message' && event.name !== 'reasoning')) return
        streaming = true
        firstToken.observe((performance.now() - started) / 1000)
      })
      try {
        const report = await execute(request, turn)
        turns.inc({ outcome: report.sessionGone ? 'session_gone' : report.result.outcome })
        const usage = report.result.usage
        if (usage !== undefined) {
          tokens.inc({ direction: 'input' }, usage.inputTokens)
          tokens.inc({ direction: 'output' }, usage.outputTokens)
        }
        return report
      } catch (error) {
        turns.inc({ outcome: 'error' })
        throw error
      } finally {
        off()
      }
    },
    /** The approvals, their decisions counted. */
    approvals: (service: Pick<Approvals, 'decide'>): Pick<Approvals, 'decide'> => ({
      decide: async (...args) => {
        const decided = await service.decide(...args)
        approvals.inc({ event: decided.approval.status })
        return decided
      }
    }),
    sse: { opened: () => { sse.inc() }, closed: () => { sse.dec() } }
  }
}

export type OracleMetrics = ReturnType<typeof createOracleMetrics>
