import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react'
import {
  OracleStreamError, type ActionCallState, type AnyBrowserTool, type Attachment, type MessageStream,
  type OracleEvent, type SocketState, type ToolApproval, type TurnResult
} from '@impact/oracle-client'
import { applyEvent, appendNew, fromDto, settleTurn, type ChatMessage, type ChatStatus } from './chat-state.ts'
import { useOracleContext } from './provider.tsx'
import { renderActionCall, type ChatAction } from './render-action.ts'
import { useApprovals } from './use-approvals.ts'
import { useChatSocket } from './use-chat-socket.ts'

export type { ChatAction }

export interface UseChatOptions {
  /** The session to chat in; without one the hook is idle. */
  sessionId: string | undefined
  /** Tools the agent may run in this tab (advertised with every message, run over the session socket). */
  browserTools?: readonly AnyBrowserTool[]
  /** AG-UI actions, optionally with `render`. */
  agActions?: readonly ChatAction[]
  model?: string
  metadata?: Record<string, unknown>
  /** Turns per history page (default 20). */
  historyPageSize?: number
  /**
   * The session socket: `'auto'` (default) connects when tools or actions are declared, or once the session has
   * had a tool approval (the rest of a turn resumed by an answer may come over the socket only).
   */
  socket?: boolean | 'auto'
  /** The oracle requires payment: the claim ids to settle. The chat goes back to `ready`. */
  onPaymentRequired?: (claimIds: string[]) => void
  onError?: (error: Error) => void
  /** Every streamed and socket event. */
  onEvent?: (event: OracleEvent) => void
  onFinish?: (result: TurnResult) => void
}

export interface UseChatResult {
  messages: ChatMessage[]
  status: ChatStatus
  /** True while a message is submitted or its answer streams. */
  isSending: boolean
  error: Error | undefined
  /** Sends a message and streams the answer; resolves with the turn (undefined when it did not start). */
  sendMessage: (
    text: string,
    extra?: { attachments?: Attachment[], metadata?: Record<string, unknown> }
  ) => Promise<TurnResult | undefined>
  /** Stops the answer in flight (the oracle keeps what was said so far). */
  abort: () => Promise<void>
  /** Tool calls of the session waiting for the user's approval, oldest first (from history, stream and socket). */
  pendingApprovals: ToolApproval[]
  /** Lets a waiting tool call run; resolves with the decided request. */
  approve: (toolCallId: string) => Promise<ToolApproval>
  /** Declines a waiting tool call; the agent is told, with `reason` when given. */
  deny: (toolCallId: string, reason?: string) => Promise<ToolApproval>
  hasOlder: boolean
  isLoadingHistory: boolean
  loadOlder: () => Promise<void>
  /** Reloads the newest page of history. */
  reload: () => Promise<void>
  socketState: SocketState | 'off'
  /** Draws an action call with its action's `render` (null when it has none). */
  renderAction: (call: ActionCallState) => ReactNode
  clearError: () => void
}

const actionNamesOf = (options: UseChatOptions) => new Set((options.agActions ?? []).map((a) => a.name))
const claimsOf = (error: unknown): string[] | undefined => (error as { claimIds?: string[] } | null)?.claimIds
const localId = () => `local-${globalThis.crypto?.randomUUID?.() ?? `${Date.now()}-${Math.random()}`}`

/** Settles with `promise`, or rejects with the signal's reason as soon as it aborts. */
async function untilAborted (promise: Promise<unknown>, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted()
  let onAbort = () => {}
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => { reject(signal.reason) }
    signal.addEventListener('abort', onAbort, { once: true })
  })
  try {
    await Promise.race([promise, aborted])
  } finally {
    signal.removeEventListener('abort', onAbort)
  }
}

/** A chat in one session: history, streamed answers, status, abort, tools and actions. */
export function useChat (options: UseChatOptions): UseChatResult {
  const { client } = useOracleContext('useChat')
  const { sessionId } = options
  const pageSize = options.historyPageSize ?? 20
  const latest = useRef(options)
  useEffect(() => { latest.current = options })

  const [messages, setMessages] = useState<ChatMessage[]>([])
  const [status, setStatus] = useState<ChatStatus>('ready')
  const [error, setError] = useState<Error | undefined>()
  const [hasOlder, setHasOlder] = useState(false)
  const [isLoadingHistory, setLoadingHistory] = useState(false)
  const cursors = useRef<{ prev: string | null, next: string | null }>({ prev: null, next: null })
  const generation = useRef(0)
  const busy = useRef(false)
  const stream = useRef<MessageStream | undefined>(undefined)
  const submitting = useRef<AbortController | undefined>(undefined)
  /** The newest-page load in flight (settled, never rejected): a message sent meanwhile waits for it. */
  const historyLoad = useRef<Promise<void>>(Promise.resolve())

  const fail = useCallback((caught: unknown) => {
    const claims = claimsOf(caught)
    if (claims !== undefined) {
      latest.current.onPaymentRequired?.(claims)
      return
    }
    const failure = caught instanceof Error ? caught : new Error(String(caught))
    setError(failure)
    latest.current.onError?.(failure)
  }, [])
  const approvals = useApprovals({ client, session: latest, fail })
  const { note: noteApproval, list: listApprovals, reset: resetApprovals } = approvals

  /** Numbers newest-page loads: only the latest one started lands (an earlier one may answer later). */
  const loads = useRef(0)
  /** Starts loading the newest page; the load is also `historyLoad`, which a message sent meanwhile waits for. */
  const loadNewest = useCallback((gen: number, id: string): Promise<void> => {
    const load = ++loads.current
    const current = () => gen === generation.current && load === loads.current
    setLoadingHistory(true)
    const loading = (async () => {
      try {
        const page = await client.getHistory(id, { limit: pageSize })
        if (!current()) return
        cursors.current = { prev: page.prevCursor, next: page.nextCursor }
        setHasOlder(page.hasOlder)
        listApprovals(page.pendingApprovals)
        // A message typed while the page loaded stays below it (sendMessage holds its request until
        // the page is here, so the page cannot already hold that message).
        const history = page.messages.map((m) => fromDto(m, actionNamesOf(latest.current)))
        const sending = busy.current
        setMessages((list) => (sending ? [...history, ...list.filter((m) => m.pending === true)] : history))
      } catch (caught) {
        if (current()) fail(caught)
      } finally {
        if (current()) setLoadingHistory(false)
      }
    })().catch(() => {})
    historyLoad.current = loading
    return loading
  }, [client, pageSize, fail, listApprovals])

  useEffect(() => {
    const gen = ++generation.current
    setMessages([])
    resetApprovals()
    setHasOlder(false)
    setStatus('ready')
    setError(undefined)
    cursors.current = { prev: null, next: null }
    if (sessionId !== undefined) loadNewest(gen, sessionId).catch(() => {})
    return () => {
      generation.current++
      // The answer belongs to the session being left.
      stream.current?.abort().catch(() => {})
      submitting.current?.abort()
    }
  }, [sessionId, loadNewest, resetApprovals])

  const refreshNewer = useCallback(async (gen: number, id: string) => {
    const newer = await client.getNewerHistory(id, cursors.current.next, { limit: pageSize })
    if (gen !== generation.current) return undefined
    cursors.current.next = newer.nextCursor
    if (cursors.current.prev === null) cursors.current.prev = newer.prevCursor
    listApprovals(newer.pendingApprovals)
    return newer.messages.map((m) => fromDto(m, actionNamesOf(latest.current)))
  }, [client, pageSize, listApprovals])

  const onSocketEvent = useCallback((event: OracleEvent) => {
    latest.current.onEvent?.(event)
    const id = latest.current.sessionId
    if (id === undefined) return
    if (event.eventName === 'approval_request' && event.payload.sessionId === id) {
      noteApproval(event.payload)
    } else if (
      (event.eventName === 'render_component' || event.eventName === 'delegation_required') &&
      event.payload.sessionId === id
    ) {
      setMessages((list) => list.map((m) => (
        m.requestId === event.payload.requestId && m.type === 'ai' ? applyEvent(m, event) : m
      )))
    } else if (event.eventName === 'message_cache_invalidation' && event.payload.sessionId === id && !busy.current) {
      // A turn finished elsewhere (another tab, a channel): fetch what it stored.
      const gen = generation.current
      refreshNewer(gen, id).then((stored) => {
        if (stored !== undefined) setMessages((list) => appendNew(list, stored))
      }, () => {})
    }
  }, [refreshNewer, noteApproval])

  const hasTools = (options.browserTools?.length ?? 0) > 0 || (options.agActions?.length ?? 0) > 0
  const wantsSocket = options.socket === true || (options.socket !== false && (hasTools || approvals.hadApprovals))
  const socket = useChatSocket({
    client,
    sessionId,
    enabled: wantsSocket,
    browserTools: options.browserTools,
    agActions: options.agActions,
    tools: latest,
    onEvent: onSocketEvent,
    onError: (e) => { latest.current.onError?.(e) }
  })

  const sendMessage = useCallback(async (
    text: string,
    extra: { attachments?: Attachment[], metadata?: Record<string, unknown> } = {}
  ) => {
    const o = latest.current
    const id = o.sessionId
    if (id === undefined) throw new Error('useChat has no sessionId to send to')
    if (busy.current) throw new Error('A message is already being answered; abort it first')
    busy.current = true
    const gen = generation.current
    const question = localId()
    setError(undefined)
    setStatus('submitted')
    setMessages((list) => [
      ...list,
      { id: question, type: 'human', content: text, createdAt: new Date().toISOString(), pending: true }
    ])
    const controller = new AbortController()
    submitting.current = controller
    try {
      // Sent before the history arrived, the turn's events would be wiped by the page replacing the list.
      // Stop (abort) or leaving the session ends these waits at once: the catch below handles both.
      await untilAborted(historyLoad.current, controller.signal)
      // Tool calls need the socket: give a connecting one a moment before the agent may call a tool.
      const connecting = socket.socket.current
      if (connecting !== undefined && connecting.state === 'connecting') {
        await untilAborted(connecting.ready(5000).catch(() => {}), controller.signal)
      }
      controller.signal.throwIfAborted()
      const metadata = o.metadata !== undefined || extra.metadata !== undefined
        ? { ...o.metadata, ...extra.metadata }
        : undefined
      const opened = await client.streamMessage(id, {
        message: text,
        ...(o.browserTools !== undefined ? { browserTools: o.browserTools } : {}),
        ...(o.agActions !== undefined ? { agActions: o.agActions } : {}),
        ...(o.model !== undefined ? { model: o.model } : {}),
        ...(metadata !== undefined ? { metadata } : {}),
        ...(extra.attachments !== undefined ? { attachments: extra.attachments } : {})
      }, { signal: controller.signal })
      submitting.current = undefined
      if (gen !== generation.current) {
        await opened.abort()
        return undefined
      }
      stream.current = opened
      const answerId = opened.requestId
      setStatus('streaming')
      setMessages((list) => [...list, { id: answerId, requestId: answerId, type: 'ai', content: '', pending: true }])
      for await (const event of opened) {
        if (gen !== generation.current) break
        setMessages((list) => list.map((m) => (m.id === answerId && m.pending === true ? applyEvent(m, event) : m)))
        if (event.eventName === 'approval_request') noteApproval(event.payload)
        latest.current.onEvent?.(event)
      }
      const result = await opened.done
      stream.current = undefined
      if (gen !== generation.current) return result
      const stored = await refreshNewer(gen, id).catch(() => undefined)
      if (gen !== generation.current) return result
      const settled = {
        requestId: answerId,
        ...(result.messageId !== undefined ? { messageId: result.messageId } : {})
      }
      setMessages((list) => settleTurn(list, settled, stored ?? []))
      if (result.outcome === 'failed') {
        const failure = new OracleStreamError(result.errors[0] ?? { error: 'The oracle failed to answer' })
        setError(failure)
        setStatus('error')
        latest.current.onError?.(failure)
      } else {
        setStatus('ready')
      }
      latest.current.onFinish?.(result)
      return result
    } catch (caught) {
      submitting.current = undefined
      if (gen !== generation.current) return undefined
      setMessages((list) => list.filter((m) => m.id !== question))
      // Payment required (the callback gets the claims), or stopped before the stream opened: back to ready.
      if (claimsOf(caught) !== undefined || controller.signal.aborted) {
        if (!controller.signal.aborted) fail(caught)
        setStatus('ready')
        return undefined
      }
      fail(caught)
      setStatus('error')
      return undefined
    } finally {
      busy.current = false
    }
  }, [client, refreshNewer, fail, socket.socket, noteApproval])

  const abort = useCallback(async () => {
    if (stream.current !== undefined) await stream.current.abort()
    else submitting.current?.abort()
  }, [])

  const loadOlder = useCallback(async () => {
    const id = latest.current.sessionId
    const before = cursors.current.prev
    if (id === undefined || before === null) return
    const gen = generation.current
    setLoadingHistory(true)
    try {
      const page = await client.getHistory(id, { limit: pageSize, before })
      if (gen !== generation.current) return
      cursors.current.prev = page.prevCursor ?? before
      setHasOlder(page.hasOlder)
      const older = page.messages.map((m) => fromDto(m, actionNamesOf(latest.current)))
      setMessages((list) => {
        const known = new Set(list.map((m) => m.id))
        return [...older.filter((m) => !known.has(m.id)), ...list]
      })
    } catch (caught) {
      if (gen === generation.current) fail(caught)
    } finally {
      if (gen === generation.current) setLoadingHistory(false)
    }
  }, [client, pageSize, fail])

  const reload = useCallback(async () => {
    const id = latest.current.sessionId
    if (id !== undefined && !busy.current) await loadNewest(generation.current, id)
  }, [loadNewest])

  const renderAction = useCallback(
    (call: ActionCallState): ReactNode => renderActionCall(latest.current.agActions, call), [])

  const clearError = useCallback(() => {
    setError(undefined)
    setStatus((s) => (s === 'error' ? 'ready' : s))
  }, [])

  return {
    messages,
    status,
    isSending: status === 'submitted' || status === 'streaming',
    error,
    sendMessage,
    abort,
    pendingApprovals: approvals.pending,
    approve: approvals.approve,
    deny: approvals.deny,
    hasOlder,
    isLoadingHistory,
    loadOlder,
    reload,
    socketState: socket.state,
    renderAction,
    clearError
  }
}
