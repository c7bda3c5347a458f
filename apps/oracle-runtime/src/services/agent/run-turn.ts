import { randomUUID } from 'node:crypto'
import { Value } from '@sinclair/typebox/value'
import type { ToolCallRecord, ToolDeclaration } from '@impact/schemas'
import type { ClientToolPort } from '../client-tools.ts'
import type { EventBus, RuntimeEventName } from '../event-bus.ts'
import { fitContext, type ContextBudget } from './context.ts'
import { UpstreamError, type ChatMessage, type ChatModel, type ToolCallRequest, type ToolDefinition } from './model.ts'
import {
  approvalSummary, clientToolDefinition, needsApproval, precheckServerTool, runServerTool, serverToolDefinition,
  type ServerTool
} from './tools.ts'

/** Browser tools and AG-UI actions as the message declared them (an action's `hasRender` does not matter here). */
export interface TurnTools { server: ServerTool[], browser: ToolDeclaration[], actions: ToolDeclaration[] }

/** Where a turn stood when a tool call began to wait for approval: enough to run the rest of it later. */
export interface ResumePoint {
  step: number
  /** The turn's messages after the user's: earlier tool rounds, this step's call, the results so far. */
  steps: ChatMessage[]
  /** The calls of this step still to run, the waiting one first. */
  remaining: ToolCallRequest[]
  content: string
  reasoning: string
  toolCalls: ToolCallRecord[]
}

/**
 * The answer to an approval request. `suspended`: this turn stops here without an answer (its process is
 * shutting down); a decision taken later resumes the turn from its `ResumePoint`.
 */
export type ApprovalVerdict =
  | { kind: 'approved' }
  | { kind: 'denied', reason?: string | undefined }
  | { kind: 'expired', afterMs: number }
  | { kind: 'cancelled', why: 'turn' | 'superseded' | 'interrupted' | 'unavailable' }
  | { kind: 'suspended' }

export interface ApprovalAsk {
  call: { id: string, name: string, args: Record<string, unknown> }
  summary: string
  point: ResumePoint
}

export interface TurnInput {
  sessionId: string
  requestId: string
  did: string
  model: string
  /** System prompt, history and the new user message (on a resumed turn: the history up to its user message). */
  messages: ChatMessage[]
  tools: TurnTools
  /** The message's `mcpInvocations`, handed to server tools. */
  mcpInvocations?: Readonly<Record<string, string>> | undefined
  signal: AbortSignal
  /** Asks the user before a tool that changes state runs; without it such tools are refused. */
  approve?: (ask: ApprovalAsk) => Promise<ApprovalVerdict>
  /** Continues a turn that stopped while a call waited for approval, with the user's decision on that call. */
  resume?: { point: ResumePoint, verdict: ApprovalVerdict } | undefined
}

export interface TurnResult {
  content: string
  reasoning: string
  toolCalls: ToolCallRecord[]
  /** `suspended`: it stopped waiting for an approval; the turn goes on when the user decides. */
  outcome: 'completed' | 'aborted' | 'failed' | 'suspended'
  error?: UpstreamError
  /** Tokens of every model request of the turn, when the provider reports them. */
  usage?: { inputTokens: number, outputTokens: number }
}

/** The tool result the model gets for a call the user did not approve (or could not, in time). */
export function notRunOutput (toolName: string, verdict: ApprovalVerdict): string {
  switch (verdict.kind) {
    case 'denied':
      return verdict.reason !== undefined && verdict.reason.trim() !== ''
        ? `The user declined: ${verdict.reason.trim()}. ${toolName} was not run.`
        : `The user declined to run ${toolName}; it was not run.`
    case 'expired':
      return `Approval timed out: the user did not answer within ${Math.round(verdict.afterMs / 1000)} s, ` +
        `so ${toolName} was not run.`
    case 'cancelled':
      return verdict.why === 'superseded'
        ? `The user sent a new message instead of answering the approval request; ${toolName} was not run.`
        : verdict.why === 'interrupted'
          ? `The user approved ${toolName}, but the turn stopped before it could run; it was not run.`
          : verdict.why === 'unavailable'
            ? `${toolName} needs the user's approval, which cannot be asked for here; it was not run.`
            : `The turn ended before the user answered the approval request; ${toolName} was not run.`
    default:
      return `${toolName} was not run.`
  }
}

export interface AgentDeps {
  model: ChatModel
  bus: EventBus
  clientTools: ClientToolPort
  maxSteps: number
  /** Default deadline of a server tool call (a tool may set its own). */
  toolTimeoutMs: number
  /** What one model request may carry. */
  context: ContextBudget
}

type Route =
  | { kind: 'server', tool: ServerTool }
  | { kind: 'browser', tool: ToolDeclaration }
  | { kind: 'action', tool: ToolDeclaration }

const now = () => new Date().toISOString()
/** What runTool answers when the turn stopped to wait for an approval (no tool result to give the model). */
const SUSPENDED = Symbol('suspended')

function routesOf (tools: TurnTools): { routes: Map<string, Route>, definitions: ToolDefinition[] } {
  const routes = new Map<string, Route>()
  const definitions: ToolDefinition[] = []
  // Server tools win a name clash: a client cannot shadow a runtime tool.
  for (const tool of tools.server) {
    if (routes.has(tool.name)) continue
    routes.set(tool.name, { kind: 'server', tool })
    definitions.push(serverToolDefinition(tool))
  }
  for (const tool of tools.browser) {
    if (routes.has(tool.name)) continue
    routes.set(tool.name, { kind: 'browser', tool })
    definitions.push(clientToolDefinition(tool))
  }
  for (const tool of tools.actions) {
    if (routes.has(tool.name)) continue
    routes.set(tool.name, { kind: 'action', tool })
    definitions.push(clientToolDefinition(tool))
  }
  return { routes, definitions }
}

/**
 * One agent turn: stream the model, run the tools it calls (server tools here, browser tools and
 * AG-UI actions through the client-tool port), feed the results back, until it answers without
 * tools or the step budget is spent. Every step is published on the event bus; `done` is left to
 * the caller, which sends it after the answer is stored.
 */
export async function runTurn (deps: AgentDeps, input: TurnInput): Promise<TurnResult> {
  const { sessionId, requestId, did, signal } = input
  const emit = (name: RuntimeEventName, data: Record<string, unknown>) =>
    deps.bus.publish({ name, sessionId, requestId, did, data })
  const { routes, definitions } = routesOf(input.tools)
  const resumed = input.resume?.point
  const base = input.messages.length
  const messages = [...input.messages, ...(resumed?.steps ?? [])]
  const result: TurnResult = {
    content: resumed?.content ?? '',
    reasoning: resumed?.reasoning ?? '',
    toolCalls: [...(resumed?.toolCalls ?? [])],
    outcome: 'completed'
  }
  /** Runs one step's calls in order; true when the turn stops there (aborted, or suspended for an approval). */
  const runCalls = async (requests: ToolCallRequest[], step: number, verdict?: ApprovalVerdict) => {
    for (const [i, call] of requests.entries()) {
      const at = { step, remaining: requests.slice(i) }
      const output = await runTool(call, routes.get(call.function.name), at, i === 0 ? verdict : undefined)
      if (output === SUSPENDED) { result.outcome = 'suspended'; return true }
      messages.push({ role: 'tool', tool_call_id: call.id, content: output })
      if (signal.aborted) { result.outcome = 'aborted'; return true }
    }
    return false
  }

  try {
    if (input.resume !== undefined && resumed !== undefined) {
      if (await runCalls(resumed.remaining, resumed.step, input.resume.verdict)) return result
    }
    for (let step = resumed === undefined ? 0 : resumed.step + 1; step < deps.maxSteps; step++) {
      const lastStep = step === deps.maxSteps - 1
      const calls = new Map<number, { id: string, name: string, arguments: string }>()
      let stepContent = ''
      let reasoning: 'none' | 'open' | 'closed' = 'none'
      // The last reasoning frame (isComplete) goes out as soon as the model moves on to answering.
      const closeReasoning = () => {
        if (reasoning !== 'open') return
        reasoning = 'closed'
        emit('reasoning', {
          sessionId,
          requestId,
          reasoning: '',
          reasoningDetails: [],
          isComplete: true,
          timestamp: now()
        })
      }
      try {
        const context = fitContext(messages, deps.context)
        const request = { model: input.model, messages: context, tools: lastStep ? [] : definitions, signal }
        for await (const chunk of deps.model.stream(request)) {
          if (signal.aborted) break
          if (chunk.type === 'content') {
            closeReasoning()
            stepContent += chunk.text
            // Kept as it arrives, so an aborted turn still stores what the user already saw.
            result.content += chunk.text
            emit('message', { content: chunk.text, timestamp: now() })
          } else if (chunk.type === 'reasoning') {
            if (reasoning === 'none' && result.reasoning !== '') result.reasoning += '\n'
            reasoning = 'open'
            result.reasoning += chunk.text
            emit('reasoning', {
              sessionId,
              requestId,
              reasoning: chunk.text,
              reasoningDetails: [{ type: 'thinking', text: chunk.text }],
              isComplete: false,
              timestamp: now()
            })
          } else if (chunk.type === 'usage') {
            const used = result.usage ?? { inputTokens: 0, outputTokens: 0 }
            result.usage = {
              inputTokens: used.inputTokens + chunk.inputTokens,
              outputTokens: used.outputTokens + chunk.outputTokens
            }
          } else {
            closeReasoning()
            const call = calls.get(chunk.index) ?? { id: '', name: '', arguments: '' }
            if (chunk.id !== undefined) call.id = chunk.id
            if (chunk.name !== undefined) call.name += chunk.name
            if (chunk.arguments !== undefined) call.arguments += chunk.arguments
            calls.set(chunk.index, call)
          }
        }
      } finally {
        closeReasoning()
      }
      if (signal.aborted) { result.outcome = 'aborted'; return result }
      if (calls.size === 0) return result

      const requests: ToolCallRequest[] = [...calls.values()].map((c, i) => ({
        // Request ids repeat across turns (clients reuse them): a made-up call id must not.
        id: c.id !== '' ? c.id : `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
        type: 'function',
        function: { name: c.name, arguments: c.arguments === '' ? '{}' : c.arguments }
      }))
      messages.push({ role: 'assistant', content: stepContent === '' ? null : stepContent, tool_calls: requests })
      if (await runCalls(requests, step)) return result
    }
    return result
  } catch (error) {
    if (signal.aborted) { result.outcome = 'aborted'; return result }
    result.outcome = 'failed'
    result.error = error instanceof UpstreamError
      ? error
      : new UpstreamError('the agent failed unexpectedly', { cause: error, retryable: false })
    return result
  }

  async function runTool (
    call: ToolCallRequest,
    route: Route | undefined,
    at: { step: number, remaining: ToolCallRequest[] },
    decided?: ApprovalVerdict
  ): Promise<string | typeof SUSPENDED> {
    const name = call.function.name
    let args: Record<string, unknown> = {}
    let problem: string | undefined
    try {
      const parsed = JSON.parse(call.function.arguments) as unknown
      const isObject = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      if (isObject) args = parsed as Record<string, unknown>
      else problem = 'arguments must be a JSON object'
    } catch {
      problem = 'arguments are not valid JSON'
    }
    if (route === undefined) problem = `no tool named ${name} is available`
    else if (problem === undefined && route.kind === 'server' && !Value.Check(route.tool.parameters, args)) {
      const first = Value.Errors(route.tool.parameters, args).First()
      problem = `invalid arguments: ${first?.path ?? ''} ${first?.message ?? ''}`.trim()
    }

    if (route?.kind === 'action') {
      if (problem !== undefined) {
        emit('action_call', {
          sessionId,
          requestId,
          toolCallId: call.id,
          toolName: name,
          args,
          status: 'error',
          error: problem
        })
        return record(call, args, 'error', `Error: ${problem}`, problem, false)
      }
      const outcome = await deps.clientTools.call({
        kind: 'action',
        sessionId,
        requestId,
        did,
        toolCallId: call.id,
        toolName: name,
        args,
        signal
      })
      const status = outcome.status === 'error' ? 'error' : 'done'
      emit('action_call', {
        sessionId,
        requestId,
        toolCallId: call.id,
        toolName: name,
        args,
        status,
        output: outcome.output,
        ...(outcome.error !== undefined ? { error: outcome.error } : {})
      })
      return record(call, args, status, outcome.output, outcome.error, false)
    }

    const toolContext = {
      did, sessionId, requestId, toolCallId: call.id, signal, emit, mcpInvocations: input.mcpInvocations
    }
    if (problem === undefined && route?.kind === 'server') {
      // Checked before the user is asked: a call bound to fail is not put to them. A decision taken already
      // (a resumed turn) was asked after this check.
      const refused = decided === undefined
        ? await precheckServerTool(route.tool, args, toolContext, deps.toolTimeoutMs)
        : undefined
      if (refused !== undefined) {
        return record(call, args, 'error', refused.output, refused.status === 'error' ? refused.error : undefined)
      }
      if (needsApproval(route.tool)) {
        const verdict = decided ?? await ask(call, name, args, route.tool, at)
        if (verdict.kind === 'suspended') return SUSPENDED
        if (verdict.kind !== 'approved') {
          return record(call, args, 'error', notRunOutput(name, verdict), `not approved: ${verdict.kind}`)
        }
      }
    }
    emit('tool_call', { sessionId, requestId, toolName: name, args, status: 'isRunning', eventId: call.id })
    if (problem !== undefined || route === undefined) {
      return record(call, args, 'error', `Error: ${problem ?? 'unavailable'}`, problem)
    }
    if (route.kind === 'browser') {
      const outcome = await deps.clientTools.call({
        kind: 'browser',
        sessionId,
        requestId,
        did,
        toolCallId: call.id,
        toolName: name,
        args,
        signal
      })
      return record(call, args, outcome.status === 'error' ? 'error' : 'done', outcome.output, outcome.error)
    }
    const run = await runServerTool(route.tool, args, toolContext, deps.toolTimeoutMs)
    return record(call, args, run.status, run.output, run.status === 'error' ? run.error : undefined)
  }

  async function ask (
    call: ToolCallRequest,
    name: string,
    args: Record<string, unknown>,
    tool: ServerTool,
    at: { step: number, remaining: ToolCallRequest[] }
  ): Promise<ApprovalVerdict> {
    if (input.approve === undefined) return { kind: 'cancelled', why: 'unavailable' }
    const point: ResumePoint = {
      ...at,
      steps: messages.slice(base),
      content: result.content,
      reasoning: result.reasoning,
      toolCalls: [...result.toolCalls]
    }
    return await input.approve({ call: { id: call.id, name, args }, summary: approvalSummary(tool, args), point })
  }

  function record (
    call: ToolCallRequest,
    args: unknown,
    status: 'done' | 'error',
    output: string,
    error?: string,
    announce = true
  ): string {
    result.toolCalls.push({ id: call.id, name: call.function.name, args, status, output })
    if (announce) {
      emit('tool_call', {
        sessionId,
        requestId,
        toolName: call.function.name,
        args,
        status,
        output,
        eventId: call.id,
        ...(error !== undefined ? { error } : {})
      })
    }
    return output
  }
}
