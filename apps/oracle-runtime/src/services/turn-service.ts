import type { ToolDeclaration } from '@impact/schemas'
import type { FastifyBaseLogger } from 'fastify'
import type { Kysely } from 'kysely'
import { insertMessage, type StoredMessage } from '../db/repositories/messages.ts'
import { touchSession } from '../db/repositories/sessions.ts'
import type { DB } from '../db/types.ts'
import type { StoredApproval } from '../db/repositories/approvals.ts'
import type { LoadedPlugin, TurnContext } from '../runtime-plugins/types.ts'
import type { ChatMessage } from './agent/model.ts'
import { withinDeadline } from './agent/deadline.ts'
import { runTurn, type AgentDeps, type ApprovalAsk, type TurnResult } from './agent/run-turn.ts'
import { verdictOf, type Approvals, type SuspendedTurn } from './approvals.ts'
import type { ActiveTurn } from './turn-registry.ts'

const USER_MESSAGE_WRITE_DELAY_MS = 100
/** The model's context: the newest stored messages (tool rounds are expanded back into chat messages). */
export const CONTEXT_MESSAGES = 40

export interface TurnRequest {
  did: string
  sessionId: string
  requestId: string
  message: string
  model: string
  timezone: string | undefined
  browserTools: ToolDeclaration[]
  actions: ToolDeclaration[]
  attachments?: unknown[]
  metadata?: Record<string, unknown>
  /** Tool name → UCAN invocation for protected MCP tools (never logged or stored). */
  mcpInvocations?: Record<string, string>
  firstMessage: boolean
  /** The session's newest messages, read by the caller together with the session itself. */
  history: StoredMessage[]
  /**
   * Goes on with a turn that stopped while a call waited for approval (its user message is already stored,
   * the newest in `history`), acting on the decision taken since. `message` is not used then.
   */
  resume?: { approval: StoredApproval } | undefined
}

/** `sessionGone`: the session was deleted while the turn ran; nothing of the turn was kept. */
export interface TurnReport { result: TurnResult, stored: StoredMessage | undefined, sessionGone: boolean }

function historyToChat (messages: StoredMessage[]): ChatMessage[] {
  const chat: ChatMessage[] = []
  for (const m of messages) {
    if (m.type === 'human') { chat.push({ role: 'user', content: m.content }); continue }
    const calls = m.toolCalls ?? []
    if (calls.length > 0) {
      chat.push({
        role: 'assistant',
        content: null,
        tool_calls: calls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: JSON.stringify(c.args ?? {}) }
        }))
      })
      for (const c of calls) chat.push({ role: 'tool', tool_call_id: c.id, content: c.output })
    }
    if (m.content !== '') chat.push({ role: 'assistant', content: m.content })
  }
  // A window must not open on tool results whose call was cut off.
  while (chat[0] !== undefined && chat[0].role !== 'user') chat.shift()
  return chat
}

/**
 * Request ids come from clients and are reused (one id for a whole session is common), so they do
 * not select history. Only a retry, the newest stored turn resent with the same id and text, is
 * left out, so the model sees the message once.
 */
function withoutRetriedTurn (history: StoredMessage[], requestId: string, message: string): StoredMessage[] {
  const last = history.findLastIndex((m) => m.type === 'human')
  const turn = history[last]
  const retried = turn !== undefined && turn.requestId === requestId && turn.content === message
  return retried ? history.slice(0, last) : history
}

function systemPrompt (
  oracleName: string,
  timezone: string | undefined,
  sections: string[],
  clientTools: string[]
): string {
  const now = new Date()
  const local = timezone !== undefined
    ? ` (${now.toLocaleString('en-GB', { timeZone: timezone })} in the user's time zone ${timezone})`
    : ''
  return [
    `You are ${oracleName}, an AI oracle. Answer helpfully, accurately and concisely.`,
    `Current time: ${now.toISOString()}${local}.`,
    ...sections,
    ...(clientTools.length > 0
      ? [`These tools run in the user's browser: ${clientTools.join(', ')}. ` +
        'Their outcome may be unknown if the page does not answer.']
      : [])
  ].join('\n\n')
}

/**
 * Runs one message turn end to end: stores the user's message, loads plugin state (before the
 * agent runs, so preferences apply from the first turn), runs the agent, stores the answer, lets
 * plugins see the outcome, and publishes `error` (on failure), `message_cache_invalidation` and
 * finally `done` on the event bus.
 */
export function createTurnService (deps: {
  db: Kysely<DB>
  agent: AgentDeps
  plugins: LoadedPlugin[]
  approvals: Pick<Approvals, 'ask' | 'settleOpen'>
  oracleName: string
  log: FastifyBaseLogger
}) {
  const { db, agent, plugins, approvals } = deps

  return async function executeTurn (request: TurnRequest, turn: ActiveTurn): Promise<TurnReport> {
    const { did, sessionId, requestId } = request
    const publish = (name: 'error' | 'done' | 'message_cache_invalidation', data: Record<string, unknown>) =>
      agent.bus.publish({ name, sessionId, requestId, did, data })
    const context: TurnContext = { did, sessionId, requestId, timezone: request.timezone, signal: turn.signal }

    // Plugin hooks get a tool's deadline: one that hangs must not hold the session's lease forever.
    const within = async <T>(plugin: string, work: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal) => {
      const outcome = await withinDeadline(work, agent.toolTimeoutMs, signal)
      if (outcome === 'timeout') deps.log.warn({ plugin, sessionId, requestId }, 'plugin hook timed out')
      return typeof outcome === 'object' ? outcome.value : undefined
    }

    // Only plugin state waits before the model is called (the history came with the session).
    // The user's message is stored 100 ms into the turn, or when it ends if sooner: on the embedded
    // engine a write runs on this thread and would otherwise sit between the user and the first token.
    const states$ = Promise.all(plugins.map(async ({ definition, plugin }) => plugin.loadState === undefined
      ? undefined
      : await within(definition.name, async (signal) => await plugin.loadState?.({ ...context, signal }), turn.signal)))
    const resumed = request.resume?.approval
    // Approvals earlier turns left open end with this new message; their answers go before it.
    const settled$ = resumed !== undefined ? Promise.resolve([]) : approvals.settleOpen(sessionId)
    let userMessageStored: Promise<void> | undefined
    let sessionGone = false
    const storeUserMessage = () => {
      userMessageStored ??= (async () => {
        clearTimeout(timer)
        await settled$.catch(() => {})
        if (resumed !== undefined) return
        const { attachments, metadata } = request
        const human = {
          sessionId,
          requestId,
          role: 'human' as const,
          content: request.message,
          ...(attachments !== undefined ? { attachments } : {}),
          ...(metadata !== undefined ? { metadata } : {})
        }
        if (await insertMessage(db, human) === undefined) {
          sessionGone = true
          return
        }
        await touchSession(db, sessionId, request.firstMessage ? request.message : undefined)
      })()
      userMessageStored.catch(() => {})
    }
    const timer = setTimeout(storeUserMessage, USER_MESSAGE_WRITE_DELAY_MS)
    const [states, settled] = await Promise.all([states$, settled$])
    const history = resumed !== undefined
      ? request.history
      : [...withoutRetriedTurn(request.history, requestId, request.message), ...settled]
    const sections = states.flatMap((s) => (s?.prompt !== undefined ? [s.prompt] : []))
    const clientTools = [...request.browserTools, ...request.actions].map((t) => t.name)
    const messages: ChatMessage[] = [
      { role: 'system', content: systemPrompt(deps.oracleName, request.timezone, sections, clientTools) },
      ...historyToChat(history),
      ...(resumed === undefined ? [{ role: 'user' as const, content: request.message }] : [])
    ]
    const approve = async (ask: ApprovalAsk) => {
      // A turn resumed later reads its question from the history: it must be stored before anyone can decide.
      storeUserMessage()
      await userMessageStored
      const suspended: SuspendedTurn = {
        model: request.model,
        timezone: request.timezone,
        browserTools: request.browserTools,
        actions: request.actions,
        point: ask.point
      }
      turn.awaitingUser = true
      try {
        return await approvals.ask({
          did, sessionId, requestId, ...ask, turn: suspended, signal: turn.signal, why: turn.reason
        })
      } finally {
        turn.awaitingUser = false
      }
    }
    const result = await runTurn(agent, {
      sessionId,
      requestId,
      did,
      model: request.model,
      messages,
      tools: {
        server: plugins.flatMap(({ plugin }) => plugin.tools ?? []),
        browser: request.browserTools,
        actions: request.actions
      },
      mcpInvocations: request.mcpInvocations,
      signal: turn.signal,
      approve,
      ...(resumed !== undefined
        ? { resume: { point: (resumed.turn as SuspendedTurn).point, verdict: verdictOf(resumed) } }
        : {})
    }).finally(storeUserMessage)
    await userMessageStored

    if (result.outcome === 'suspended') {
      // Nothing of the answer is stored yet: the approval holds it, and deciding it resumes the turn.
      publish('message_cache_invalidation', { sessionId, requestId, status: 'done' })
      publish('done', { awaitingApproval: true })
      return { result, stored: undefined, sessionGone: false }
    }

    sessionGone ||= turn.reason() === 'deleted'
    let stored: StoredMessage | undefined
    if (!sessionGone && (result.content !== '' || result.toolCalls.length > 0)) {
      const metadata = result.outcome === 'completed'
        ? undefined
        : { [result.outcome]: true, ...(turn.reason() === 'disconnected' ? { disconnected: true } : {}) }
      stored = await insertMessage(db, {
        sessionId,
        requestId,
        role: 'ai',
        content: result.content,
        toolCalls: result.toolCalls,
        ...(result.reasoning !== '' ? { reasoning: result.reasoning } : {}),
        ...(metadata !== undefined ? { metadata } : {})
      })
      if (stored === undefined) sessionGone = true
      else await touchSession(db, sessionId)
    }
    const outcome = result.outcome
    for (const { definition, plugin } of plugins) {
      if (plugin.onTurnEnd === undefined) continue
      // Not bound to the turn's signal: an aborted turn still reaches its plugins (credits charge aborted answers).
      const notify = async (signal: AbortSignal) => { await plugin.onTurnEnd?.({ ...context, signal }, outcome) }
      await within(definition.name, notify)
        .catch((err: unknown) => deps.log.error({ err, plugin: definition.name }, 'plugin onTurnEnd failed'))
    }
    if (sessionGone) {
      publish('error', {
        error: 'The session was deleted while this message was being answered',
        kind: 'not_found',
        status: 404,
        retryable: false,
        sessionId,
        requestId,
        timestamp: new Date().toISOString()
      })
      publish('done', { aborted: true })
      return { result, stored: undefined, sessionGone }
    }
    if (result.error !== undefined) {
      deps.log.warn({ err: result.error, sessionId, requestId }, 'model turn failed')
      publish('error', {
        error: `The model provider failed: ${result.error.message}`,
        kind: 'upstream',
        source: 'llm',
        ...(result.error.status !== undefined ? { status: result.error.status } : {}),
        retryable: result.error.retryable,
        sessionId,
        requestId,
        timestamp: new Date().toISOString()
      })
    }
    // The user's message is stored whatever the outcome, so the history changed after every turn.
    publish('message_cache_invalidation', { sessionId, requestId, status: 'done' })
    publish('done', {
      ...(stored !== undefined ? { messageId: stored.id } : {}),
      ...(result.outcome === 'aborted' ? { aborted: true } : {}),
      ...(result.outcome === 'failed' ? { failed: true } : {})
    })
    return { result, stored, sessionGone }
  }
}

export type ExecuteTurn = ReturnType<typeof createTurnService>
