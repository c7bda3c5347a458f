import { io, type Socket } from 'socket.io-client'
import type { OracleEventPayloads, ToolApproval } from '@impact/schemas'
import { isDelegationReport } from './errors.ts'
import { toOracleEvent, type OracleEvent, type OracleEventListener } from './events.ts'
import { errorText, type AnyAgAction, type AnyBrowserTool, type ToolCallContext } from './tools.ts'
import type { Transport } from './transport.ts'

export type SocketState = 'connecting' | 'connected' | 'disconnected'

export interface SocketOptions {
  /** Browser tools run on `browser_tool_call`. */
  browserTools?: readonly AnyBrowserTool[] | undefined
  /** AG-UI actions run on `action_call`. */
  agActions?: readonly AnyAgAction[] | undefined
  onEvent?: OracleEventListener | undefined
  /**
   * A tool call in the session waits for the user's approval (`approval_request`, status `pending`): also the
   * calls of turns this page did not start, and of a turn whose stream dropped. Answer with `client.approve`.
   */
  onApprovalRequest?: ((approval: ToolApproval) => void) | undefined
  onStateChange?: ((state: SocketState) => void) | undefined
  /**
   * The oracle asks the user to authorise it (again): `delegation_required`, also for turns this page did not
   * stream (one resumed after a restart). The client has already set about storing a fresh delegation.
   */
  onDelegationRequired?: ((prompt: OracleEventPayloads['delegation_required']) => void) | undefined
  /** Connection failures and results the server refused; never carries tokens. */
  onError?: ((error: Error) => void) | undefined
  /** Reconnect after network drops (default true). */
  reconnection?: boolean | undefined
  /**
   * How long to wait, once the transport is up, for the server's `connected` greeting (sent when the
   * connection has joined the session, so events reach it) before counting it joined anyway (default 3 s).
   */
  joinTimeoutMs?: number | undefined
}

interface RawCall {
  sessionId: string
  requestId: string
  toolCallId: string
  toolName: string
  args?: unknown
  status?: string
}

const AUTH_CODES = new Set(['UCAN_INVALID_INVOCATION', 'UCAN_INVALID_DELEGATION', 'UCAN_MISSING'])
const RAW_DIAGNOSTICS = new Set(['connected', 'pong', 'status', 'subscribed', 'available-events'])
const HANDLED = 500

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * The session's socket.io connection (oracle-wire §6): websocket transport only, handshake with
 * `sessionId` (and the informational `userDid`) in the query and the same UCAN artifacts as HTTP in
 * `auth` (`invocation` only with an invocation callback, `ucanDelegation` always), minted from the
 * shared credential cache at every (re)connection. A handshake refused for its credentials is retried
 * once with fresh ones. Runs browser tools and AG-UI actions and answers their results.
 */
export class OracleSocket {
  readonly sessionId: string
  readonly #transport: Transport
  readonly #socket: Socket
  readonly #options: SocketOptions
  readonly #tools: Map<string, AnyBrowserTool>
  readonly #actions: Map<string, AnyAgAction>
  readonly #listeners = new Set<OracleEventListener>()
  readonly #handled: string[] = []
  readonly #stateListeners = new Set<(state: SocketState) => void>()
  #state: SocketState = 'disconnected'
  #authRetried = false
  #joinTimer: ReturnType<typeof setTimeout> | undefined
  #used: { delegation: string, invocation?: string } | undefined

  constructor (transport: Transport, sessionId: string, url: string, options: SocketOptions = {}) {
    this.sessionId = sessionId
    this.#transport = transport
    this.#options = options
    this.#tools = new Map((options.browserTools ?? []).map((t) => [t.name, t]))
    this.#actions = new Map((options.agActions ?? []).map((a) => [a.name, a]))
    if (options.onEvent !== undefined) this.#listeners.add(options.onEvent)
    this.#socket = io(url, {
      path: '/socket.io/',
      transports: ['websocket'],
      forceNew: true,
      autoConnect: false,
      reconnection: options.reconnection ?? true,
      query: { sessionId, userDid: transport.credentials.userDid },
      auth: (send) => {
        transport.credentials.artifacts().then(
          (artifacts) => {
            this.#used = artifacts
            send({
              ucanDelegation: artifacts.delegation,
              ...(artifacts.invocation !== undefined ? { invocation: artifacts.invocation } : {})
            })
          },
          (error: unknown) => {
            this.#fail(new Error(`Could not mint credentials for the socket: ${errorText(error)}`))
            send({})
          }
        )
      }
    })
    // The transport is up; the session is joined when the server greets with `connected`.
    this.#socket.on('connect', () => {
      clearTimeout(this.#joinTimer)
      this.#joinTimer = setTimeout(() => {
        if (this.#socket.connected) this.#setState('connected')
      }, options.joinTimeoutMs ?? 3000)
    })
    this.#socket.on('connect_error', (error) => {
      this.#connectError(error as Error & { data?: unknown }).catch(() => {})
    })
    this.#socket.on('disconnect', (reason) => {
      clearTimeout(this.#joinTimer)
      this.#setState(this.#socket.active ? 'connecting' : 'disconnected')
      // A server that refuses a handshake by disconnecting (rather than CONNECT_ERROR) gets one retry.
      if (reason === 'io server disconnect' && !this.#authRetried) {
        this.#authRetried = true
        if (this.#used?.invocation !== undefined) transport.credentials.invalidate('invocation', this.#used.invocation)
        this.connect()
      }
    })
    this.#socket.onAny((name: string, ...args: unknown[]) => { this.#receive(name, args[0]) })
  }

  get state (): SocketState {
    return this.#state
  }

  /** Joined the session: events of its turns reach this socket. */
  get connected (): boolean {
    return this.#state === 'connected'
  }

  connect (): this {
    if (!this.#socket.connected && !this.#socket.active) {
      this.#setState('connecting')
      this.#socket.connect()
    }
    return this
  }

  /** Resolves once the session is joined (the server's `connected` greeting), rejects on a refused handshake. */
  async ready (timeoutMs = 10_000): Promise<void> {
    if (this.#state === 'connected') return
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        cleanup()
        reject(new Error(`The oracle socket did not connect within ${timeoutMs} ms`))
      }, timeoutMs)
      const onState = (state: SocketState) => {
        if (state === 'connected') {
          cleanup()
          resolve()
        } else if (state === 'disconnected') {
          cleanup()
          reject(new Error('The oracle socket was refused or closed'))
        }
      }
      const cleanup = () => { clearTimeout(timer); this.#stateListeners.delete(onState) }
      this.#stateListeners.add(onState)
    })
  }

  close (): void {
    clearTimeout(this.#joinTimer)
    this.#socket.disconnect()
    this.#setState('disconnected')
  }

  on (listener: OracleEventListener): () => void {
    this.#listeners.add(listener)
    return () => { this.#listeners.delete(listener) }
  }

  /** Diagnostics (§6). Each resolves with the server's reply event. */
  async ping (timeoutMs?: number): Promise<OracleEventPayloads['pong']> {
    return await this.#ask('ping', 'pong', {}, timeoutMs)
  }

  async status (timeoutMs?: number): Promise<OracleEventPayloads['status']> {
    return await this.#ask('status', 'status', {}, timeoutMs)
  }

  async listEvents (timeoutMs?: number): Promise<OracleEventPayloads['available-events']> {
    return await this.#ask('list-events', 'available-events', {}, timeoutMs)
  }

  /** Joins another of the user's sessions on this connection and/or opts into optional events (`reasoning`). */
  async subscribe (
    request: { sessionId?: string; events?: string[] } = {},
    timeoutMs?: number
  ): Promise<OracleEventPayloads['subscribed']> {
    return await this.#ask('subscribe', 'subscribed', request, timeoutMs)
  }

  async #ask<K extends 'pong' | 'status' | 'available-events' | 'subscribed'>(
    name: string,
    reply: K,
    payload: unknown,
    timeoutMs = 5000
  ): Promise<OracleEventPayloads[K]> {
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        stop()
        reject(new Error(`No ${reply} reply within ${timeoutMs} ms`))
      }, timeoutMs)
      const stop = this.on((event) => {
        if (event.eventName !== reply) return
        clearTimeout(timer)
        stop()
        resolve(event.payload as OracleEventPayloads[K])
      })
      this.#emit(name, payload, (error) => { clearTimeout(timer); stop(); reject(error) })
    })
  }

  #setState (state: SocketState): void {
    if (this.#state === state) return
    this.#state = state
    this.#options.onStateChange?.(state)
    for (const listener of [...this.#stateListeners]) listener(state)
  }

  #fail (error: Error): void {
    this.#options.onError?.(error)
  }

  async #connectError (error: Error & { data?: unknown }): Promise<void> {
    const data = isRecord(error.data) ? error.data : {}
    const code = typeof data.code === 'string' ? data.code : undefined
    const authProblem = (code !== undefined && AUTH_CODES.has(code)) || /unauthori[sz]ed/i.test(error.message)
    if (authProblem && !this.#authRetried && !this.#socket.active) {
      this.#authRetried = true
      try {
        if (isDelegationReport({ code, message: error.message })) {
          await this.#transport.refreshDelegation(this.#used?.delegation)
        } else if (this.#used?.invocation !== undefined) {
          this.#transport.credentials.invalidate('invocation', this.#used.invocation)
        }
        this.#socket.connect()
        return
      } catch (refreshError) {
        this.#fail(new Error(`Could not renew the delegation: ${errorText(refreshError)}`))
      }
    }
    if (!this.#socket.active) this.#setState('disconnected')
    this.#fail(Object.assign(new Error(`Socket connection failed: ${error.message}`), { code }))
  }

  #receive (name: string, arg: unknown): void {
    if (name === 'connected') {
      this.#authRetried = false
      clearTimeout(this.#joinTimer)
      this.#setState('connected')
    }
    if ((name === 'browser_tool_call' || name === 'action_call') && isRecord(arg) && !('eventName' in arg)) {
      const call = arg as unknown as RawCall
      if (
        typeof call.toolCallId === 'string' &&
        typeof call.toolName === 'string' &&
        call.sessionId === this.sessionId
      ) {
        if (name === 'browser_tool_call') this.#runTool(call).catch(() => {})
        else if (call.status === undefined || call.status === 'isRunning') this.#runAction(call).catch(() => {})
      }
      this.#dispatch(toOracleEvent(name, arg, 'socket'))
      return
    }
    // Generic events come enveloped `{ eventName, payload }`, under their own name or the fixed name `event`.
    if (isRecord(arg) && typeof arg.eventName === 'string' && isRecord(arg.payload)) {
      const event = toOracleEvent(arg.eventName, arg.payload, 'socket')
      try {
        if (event?.eventName === 'approval_request' && event.payload.status === 'pending') {
          this.#options.onApprovalRequest?.(event.payload)
        } else if (event?.eventName === 'delegation_required') {
          this.#transport.answerDelegationPrompt(event.payload).catch((error: unknown) => {
            this.#fail(new Error(`Could not renew the delegation: ${errorText(error)}`))
          })
          this.#options.onDelegationRequired?.(event.payload)
        }
      } catch {
        // The app's handler failing must not stop the event reaching the listeners.
      }
      this.#dispatch(event)
      return
    }
    if (RAW_DIAGNOSTICS.has(name)) this.#dispatch(toOracleEvent(name, arg, 'socket'))
    else if (name === 'error' && isRecord(arg)) {
      this.#fail(
        new Error(
          typeof arg.error === 'string'
            ? arg.error
            : typeof arg.message === 'string'
              ? arg.message
              : 'the server refused a message'
        )
      )
    }
  }

  #dispatch (event: OracleEvent | undefined): void {
    if (event === undefined) return
    for (const listener of [...this.#listeners]) {
      try {
        listener(event)
      } catch {
        // One failing listener must not starve the others.
      }
    }
  }

  /** Each call runs once, even if the server repeats it (a reconnect, two rooms). */
  #firstTime (toolCallId: string): boolean {
    if (this.#handled.includes(toolCallId)) return false
    this.#handled.push(toolCallId)
    if (this.#handled.length > HANDLED) this.#handled.shift()
    return true
  }

  #context (call: RawCall): ToolCallContext {
    return {
      sessionId: call.sessionId,
      requestId: call.requestId,
      toolCallId: call.toolCallId,
      toolName: call.toolName
    }
  }

  async #runTool (call: RawCall): Promise<void> {
    if (!this.#firstTime(call.toolCallId)) return
    const base = { toolCallId: call.toolCallId, sessionId: call.sessionId }
    const tool = this.#tools.get(call.toolName)
    if (tool === undefined) {
      this.#emit('tool_result', { ...base, result: null, error: `Browser tool ${call.toolName} not found` })
      return
    }
    try {
      const result = await tool.handler(isRecord(call.args) ? call.args : {}, this.#context(call))
      this.#emit('tool_result', { ...base, result: result ?? null })
    } catch (error) {
      this.#emit('tool_result', { ...base, result: null, error: errorText(error) })
    }
  }

  async #runAction (call: RawCall): Promise<void> {
    if (!this.#firstTime(call.toolCallId)) return
    const base = { toolCallId: call.toolCallId, sessionId: call.sessionId }
    const action = this.#actions.get(call.toolName)
    const failure = (message: string) => ({ ...base, result: { success: false, error: message }, error: message })
    if (action === undefined) {
      this.#emit('action_call_result', failure(`Action tool ${call.toolName} not found`))
      return
    }
    try {
      const result = await action.handler(isRecord(call.args) ? call.args : {}, this.#context(call))
      this.#emit('action_call_result', { ...base, result: result ?? null })
    } catch (error) {
      this.#emit('action_call_result', failure(errorText(error)))
    }
  }

  /** Emits with an acknowledgement when the server gives one; a refusal reaches `onError`. */
  #emit (name: string, payload: unknown, onRefused?: (error: Error) => void): void {
    this.#socket.timeout(10_000).emit(name, payload, (timeout: Error | null, ack: unknown) => {
      // Servers without acknowledgements (and slow ones) are fine: only an explicit refusal counts.
      if (timeout !== null || !isRecord(ack) || ack.ok !== false) return
      const error = Object.assign(new Error(typeof ack.error === 'string' ? ack.error : `${name} was refused`), {
        code: ack.code
      })
      if (onRefused !== undefined) onRefused(error)
      else this.#fail(error)
    })
  }
}
