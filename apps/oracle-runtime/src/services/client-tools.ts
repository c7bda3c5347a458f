import type { SharedState, Unsubscribe } from '@impact/shared-state'
import type { EventBus } from './event-bus.ts'

/**
 * The one port through which the agent calls tools that run in the user's browser: browser tools
 * (`tools` in the message body) and AG-UI actions (`agActions`). A call is announced on the event
 * bus (`browser_tool_call` / `action_call`, raw payloads as the SDK expects them) and waits for
 * `resolve()`, which the WebSocket gateway calls with the client's `tool_result` /
 * `action_call_result`. Results travel over shared-state pub/sub, so the socket may sit on any
 * replica. Without an answer in time the model is told the outcome is unknown, not that it failed.
 */

export type ClientToolKind = 'browser' | 'action'

export interface ClientToolCall {
  kind: ClientToolKind
  sessionId: string
  requestId: string
  did: string
  toolCallId: string
  toolName: string
  args: Record<string, unknown>
  signal: AbortSignal
}

export interface ClientToolOutcome {
  status: 'done' | 'error' | 'unknown'
  /** What the model sees as the tool's result. */
  output: string
  result?: unknown
  error?: string
}

export interface ClientToolResult { sessionId: string, toolCallId: string, result: unknown, error?: string | undefined }

export interface ClientToolPort {
  call: (call: ClientToolCall) => Promise<ClientToolOutcome>
  /** Delivers a client's result to whichever replica waits for it. */
  resolve: (result: ClientToolResult) => Promise<void>
  /** Calls waiting on this replica. */
  readonly pending: number
  start: () => Promise<void>
  close: () => Promise<void>
}

const CHANNEL = 'client-tool-results'

export const unknownOutcome = (toolName: string, seconds: number): string =>
  `The frontend did not report a result for ${toolName} within ${seconds} s, so the outcome is unknown: ` +
  'it may or may not have run. Do not assume success or failure; tell the user and ask them to check if it matters.'

const stringify = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value ?? null))

export function createClientToolPort (deps: {
  bus: EventBus
  state: SharedState
  timeouts: Record<ClientToolKind, number>
}): ClientToolPort {
  const waiting = new Map<string, (result: ClientToolResult) => void>()
  const key = (sessionId: string, toolCallId: string) => `${sessionId}\0${toolCallId}`
  let unsubscribe: Unsubscribe | undefined

  return {
    async call (call) {
      const { kind, sessionId, requestId, did, toolCallId, toolName, args } = call
      const timeoutMs = deps.timeouts[kind]
      const answer = new Promise<ClientToolOutcome>((resolve) => {
        const finish = (outcome: ClientToolOutcome) => {
          clearTimeout(timer)
          waiting.delete(key(sessionId, toolCallId))
          call.signal.removeEventListener('abort', onAbort)
          resolve(outcome)
        }
        const timer = setTimeout(
          () => finish({ status: 'unknown', output: unknownOutcome(toolName, Math.round(timeoutMs / 1000)) }),
          timeoutMs
        )
        const onAbort = () =>
          finish({ status: 'unknown', output: 'The turn was aborted before the frontend answered.' })
        call.signal.addEventListener('abort', onAbort, { once: true })
        waiting.set(key(sessionId, toolCallId), (result) => {
          finish(result.error !== undefined && result.error !== null
            ? { status: 'error', output: `Error: ${result.error}`, result: result.result, error: result.error }
            : { status: 'done', output: stringify(result.result), result: result.result })
        })
      })
      const payload =
        kind === 'browser'
          ? { sessionId, requestId, toolCallId, toolName, args }
          : { sessionId, requestId, toolCallId, toolName, args, status: 'isRunning' }
      deps.bus.publish({
        name: kind === 'browser' ? 'browser_tool_call' : 'action_call',
        sessionId,
        requestId,
        did,
        data: payload
      })
      return await answer
    },
    async resolve (result) {
      const local = waiting.get(key(result.sessionId, result.toolCallId))
      if (local !== undefined) {
        local(result)
        return
      }
      await deps.state.publish(CHANNEL, JSON.stringify(result))
    },
    get pending () {
      return waiting.size
    },
    async start () {
      unsubscribe = await deps.state.subscribe(CHANNEL, (message) => {
        try {
          const result = JSON.parse(message) as ClientToolResult
          waiting.get(key(result.sessionId, result.toolCallId))?.(result)
        } catch {
          // A malformed message on the channel is ignored: no caller can be matched to it.
        }
      })
    },
    async close () {
      await unsubscribe?.()
    }
  }
}
