import type { OracleEventPayloads, ToolApproval } from '@impact/schemas'
import { isDelegationPrompt, isDelegationReport } from './errors.ts'
import { toOracleEvent, type OracleEvent, type OracleEventListener } from './events.ts'
import { readSse } from './sse.ts'

export type ToolCallState = Pick<
  OracleEventPayloads['tool_call'],
  'toolName' | 'args' | 'status' | 'output' | 'error'
> & { id: string }
export type ActionCallState = Pick<
  OracleEventPayloads['action_call'],
  'toolCallId' | 'toolName' | 'args' | 'status' | 'output' | 'error'
>
export type StreamErrorPayload = OracleEventPayloads['error']

/**
 * How a streamed turn ended: `disconnected` when the body ended (or went quiet) before `done`;
 * `awaiting-approval` when the oracle stopped (it restarted) while a tool call waited for the user's approval:
 * deciding it (`approve`) resumes the turn, whose events then arrive over the session socket.
 */
export type TurnOutcome = 'completed' | 'aborted' | 'failed' | 'disconnected' | 'awaiting-approval'

/** Everything a streamed turn produced, folded from its events. */
export interface TurnResult {
  sessionId: string
  requestId: string
  outcome: TurnOutcome
  /** The answer text (all `message` chunks). */
  content: string
  reasoning: string
  toolCalls: ToolCallState[]
  actionCalls: ActionCallState[]
  /** `error` events, except re-authorisation prompts: any of them makes the turn `failed`. */
  errors: StreamErrorPayload[]
  /**
   * The oracle's re-authorisation prompts (`error` events of kind `delegation_required`): it needs the user to
   * authorise it (again) for something. Not failures: the client stored a fresh delegation, the model answered.
   */
  delegationPrompts: StreamErrorPayload[]
  /** Tool calls that asked for the user's approval, as they last stood (`status` pending, approved, …). */
  approvals: ToolApproval[]
  /** Id of the stored answer, when the server reports it in `done`. */
  messageId?: string
}

export interface StreamHooks {
  /** Ends the turn on the server (`POST /messages/abort`). */
  abortOnServer: () => Promise<void>
  /** Called when an `error` event reports a missing or expired delegation (a re-authorisation prompt, mostly). */
  onDelegationReport: (report: StreamErrorPayload) => void
  idleTimeoutMs: number
  /** How long `abort()` waits for the server's closing `done` before cutting the connection. */
  abortGraceMs: number
  /** A tool call asks for the user's approval (`approval_request` with status `pending`). */
  onApprovalRequest?: ((approval: ToolApproval) => void) | undefined
}

/**
 * One streamed answer (`POST /messages/:sessionId` with `stream: true`). The body is read as soon as
 * the stream opens, so `done` settles whether or not anyone iterates; iterate it (once) for the
 * events as they arrive, or pass `onEvent`. A stream that stays silent (not even a heartbeat) for
 * `idleTimeoutMs` is cut and ends `disconnected`.
 */
export class MessageStream implements AsyncIterable<OracleEvent> {
  readonly sessionId: string
  readonly requestId: string
  /** Settles with the folded result when the turn ends; never rejects. */
  readonly done: Promise<TurnResult>
  readonly #controller: AbortController
  readonly #hooks: StreamHooks
  readonly #queue: OracleEvent[] = []
  readonly #listeners = new Set<OracleEventListener>()
  #wake: (() => void) | undefined
  #finished = false
  #aborting: Promise<void> | undefined
  #abortedByClient = false

  constructor (
    response: Response,
    init: {
      sessionId: string
      requestId: string
      controller: AbortController
      hooks: StreamHooks
      onEvent?: OracleEventListener | undefined
    }
  ) {
    this.sessionId = init.sessionId
    this.requestId = init.requestId
    this.#controller = init.controller
    this.#hooks = init.hooks
    if (init.onEvent !== undefined) this.#listeners.add(init.onEvent)
    this.done = this.#pump(response.body as ReadableStream<Uint8Array>)
  }

  /** Listens to the events of this turn; returns the function that stops listening. */
  on (listener: OracleEventListener): () => void {
    this.#listeners.add(listener)
    return () => { this.#listeners.delete(listener) }
  }

  /**
   * Aborts the turn: asks the server to stop (it ends the stream with `done`), waits briefly for
   * that, then closes the connection. Resolves once the turn has ended.
   */
  async abort (): Promise<TurnResult> {
    if (!this.#finished) {
      this.#abortedByClient = true
      this.#aborting ??= (async () => {
        await this.#hooks.abortOnServer().catch(() => {})
        let timer: ReturnType<typeof setTimeout> | undefined
        await Promise.race([
          this.done,
          new Promise((resolve) => {
            timer = setTimeout(resolve, this.#hooks.abortGraceMs)
          })
        ])
        clearTimeout(timer)
        this.#controller.abort()
      })()
      await this.#aborting
    }
    return await this.done
  }

  async * [Symbol.asyncIterator] (): AsyncIterator<OracleEvent> {
    for (;;) {
      const next = this.#queue.shift()
      if (next !== undefined) {
        yield next
        continue
      }
      if (this.#finished) return
      await new Promise<void>((resolve) => { this.#wake = resolve })
    }
  }

  #emit (event: OracleEvent): void {
    this.#queue.push(event)
    for (const listener of this.#listeners) {
      try {
        listener(event)
      } catch {
        // A failing listener must not end the turn for the others.
      }
    }
    this.#wake?.()
  }

  async #pump (body: ReadableStream<Uint8Array>): Promise<TurnResult> {
    const result: TurnResult = {
      sessionId: this.sessionId,
      requestId: this.requestId,
      outcome: 'disconnected',
      content: '',
      reasoning: '',
      toolCalls: [],
      actionCalls: [],
      errors: [],
      delegationPrompts: [],
      approvals: []
    }
    let idle: ReturnType<typeof setTimeout> | undefined
    const touch = () => {
      clearTimeout(idle)
      idle = setTimeout(() => { this.#controller.abort() }, this.#hooks.idleTimeoutMs)
    }
    let done: OracleEventPayloads['done'] | undefined
    try {
      touch()
      for await (const frame of readSse(body, touch)) {
        const event = toOracleEvent(frame.event, frame.data, 'sse', frame.id)
        if (event === undefined) continue
        fold(result, event)
        if (event.eventName === 'error' && isDelegationReport(event.payload)) {
          this.#hooks.onDelegationReport(event.payload)
        }
        if (event.eventName === 'approval_request' && event.payload.status === 'pending') {
          try {
            this.#hooks.onApprovalRequest?.(event.payload)
          } catch {
            // The app's handler failing must not end the stream.
          }
        }
        this.#emit(event)
        if (event.eventName === 'done') {
          done = event.payload
          break
        }
      }
    } catch {
      // A cut connection (abort, idle limit, network) ends the turn like a body without `done`.
    } finally {
      clearTimeout(idle)
    }
    if (done !== undefined) {
      result.outcome =
        done.aborted === true || this.#abortedByClient
          ? 'aborted'
          : done.failed === true || result.errors.length > 0
            ? 'failed'
            : done.awaitingApproval === true ? 'awaiting-approval' : 'completed'
      if (done.messageId !== undefined) result.messageId = done.messageId
    } else if (this.#abortedByClient) {
      result.outcome = 'aborted'
    }
    this.#finished = true
    this.#wake?.()
    return result
  }
}

/** A list with `item` in place of the entry `same` picks, or appended (a new array; calls update by id). */
export function upsert<T> (list: readonly T[] | undefined, item: T, same: (entry: T) => boolean): T[] {
  const next = [...(list ?? [])]
  const at = next.findIndex(same)
  if (at >= 0) next[at] = item
  else next.push(item)
  return next
}

/** A `tool_call` event as the call's state (older servers sent toolName "toolCall" with the name in args). */
export function toolCallState (payload: OracleEventPayloads['tool_call']): ToolCallState {
  const { eventId, toolName, args, status, output, error } = payload
  const named = (args as { toolName?: unknown } | null)?.toolName
  return {
    id: eventId,
    toolName: toolName === 'toolCall' && typeof named === 'string' ? named : toolName,
    args,
    status,
    ...(output !== undefined ? { output } : {}),
    ...(error !== undefined ? { error } : {})
  }
}

/** An `action_call` event as the action's state. */
export function actionCallState (payload: OracleEventPayloads['action_call']): ActionCallState {
  const { toolCallId, toolName, args, status, output, error } = payload
  return {
    toolCallId,
    toolName,
    args,
    status,
    ...(output !== undefined ? { output } : {}),
    ...(error !== undefined ? { error } : {})
  }
}

/** Folds one event into the turn's result (message text, reasoning, tool and action states, errors). */
function fold (result: TurnResult, event: OracleEvent): void {
  switch (event.eventName) {
    case 'message':
      result.content += event.payload.content
      break
    case 'reasoning':
      result.reasoning += event.payload.reasoning
      break
    case 'tool_call': {
      const state = toolCallState(event.payload)
      result.toolCalls = upsert(result.toolCalls, state, (c) => c.id === state.id)
      break
    }
    case 'action_call': {
      const state = actionCallState(event.payload)
      result.actionCalls = upsert(result.actionCalls, state, (c) => c.toolCallId === state.toolCallId)
      break
    }
    case 'approval_request': {
      const approval = event.payload
      result.approvals = upsert(result.approvals, approval, (a) => a.toolCallId === approval.toolCallId)
      break
    }
    case 'error':
      if (isDelegationPrompt(event.payload)) result.delegationPrompts.push(event.payload)
      else result.errors.push(event.payload)
      break
    default:
  }
}

export { fold as foldTurnEvent }
