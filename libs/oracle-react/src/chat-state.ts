import {
  actionCallState, isDelegationPrompt, toolCallState, upsert, type ActionCallState, type MessageDto, type OracleEvent,
  type OracleEventPayloads, type ToolApproval
} from '@impact/oracle-client'

/** `submitted`: sent, no stream yet. */
export type ChatStatus = 'submitted' | 'streaming' | 'ready' | 'error'

export interface ChatToolCall {
  id: string
  name: string
  args: unknown
  status: 'isRunning' | 'done' | 'error'
  output?: string
  error?: string
}

export type ChatComponent = OracleEventPayloads['render_component']

/** `pending`: not stored yet (the optimistic question, or the answer still streaming). */
export interface ChatMessage {
  id: string
  type: 'human' | 'ai'
  content: string
  createdAt?: string
  reasoning?: string
  toolCalls?: ChatToolCall[]
  actionCalls?: ActionCallState[]
  components?: ChatComponent[]
  attachments?: unknown[]
  metadata?: Record<string, unknown>
  error?: string
  /** A notice, not an error: the client has stored a fresh delegation, so asking again may now work. */
  delegationPrompt?: string
  pending?: boolean
  requestId?: string
}

/** Calls of the chat's AG-UI actions come back as `actionCalls`, so they render like streamed ones. */
export function fromDto (dto: MessageDto, actionNames: ReadonlySet<string> = new Set()): ChatMessage {
  const toolCalls: ChatToolCall[] = []
  const actionCalls: ActionCallState[] = []
  for (const c of dto.toolCalls ?? []) {
    if (actionNames.has(c.name)) {
      actionCalls.push({ toolCallId: c.id, toolName: c.name, args: c.args, status: c.status, output: c.output })
    } else toolCalls.push({ id: c.id, name: c.name, args: c.args, status: c.status, output: c.output })
  }
  return {
    id: dto.id,
    type: dto.type,
    content: dto.content,
    createdAt: dto.createdAt,
    ...(dto.reasoning !== undefined ? { reasoning: dto.reasoning } : {}),
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
    ...(actionCalls.length > 0 ? { actionCalls } : {}),
    ...(dto.attachments !== undefined ? { attachments: dto.attachments } : {}),
    ...(dto.metadata !== undefined ? { metadata: dto.metadata } : {})
  }
}

export function applyEvent (message: ChatMessage, event: OracleEvent): ChatMessage {
  switch (event.eventName) {
    case 'message':
      return { ...message, content: message.content + event.payload.content }
    case 'reasoning':
      return event.payload.reasoning === ''
        ? message
        : { ...message, reasoning: (message.reasoning ?? '') + event.payload.reasoning }
    case 'tool_call': {
      const { toolName, ...state } = toolCallState(event.payload)
      const call: ChatToolCall = { ...state, name: toolName }
      return { ...message, toolCalls: upsert(message.toolCalls, call, (c) => c.id === call.id) }
    }
    case 'action_call': {
      const call = actionCallState(event.payload)
      return { ...message, actionCalls: upsert(message.actionCalls, call, (c) => c.toolCallId === call.toolCallId) }
    }
    case 'render_component': {
      const component = event.payload
      const key = component.eventId ?? component.componentName
      return {
        ...message,
        components: upsert(message.components, component, (c) => (c.eventId ?? c.componentName) === key)
      }
    }
    case 'error':
      return isDelegationPrompt(event.payload)
        ? { ...message, delegationPrompt: event.payload.error }
        : { ...message, error: event.payload.error }
    case 'delegation_required':
      return { ...message, delegationPrompt: event.payload.error }
    default:
      return message
  }
}

/**
 * What only the stream carried moves onto the stored answer; with nothing stored, the streamed answer stays.
 */
export function settleTurn (
  messages: ChatMessage[],
  turn: { requestId: string; messageId?: string | undefined },
  stored: ChatMessage[]
): ChatMessage[] {
  const streamed = messages.find((m) => m.requestId === turn.requestId && m.type === 'ai')
  const known = new Set(messages.filter((m) => m.pending !== true).map((m) => m.id))
  const fresh = stored.filter((m) => !known.has(m.id))
  const answer = turn.messageId === undefined ? undefined : fresh.find((m) => m.id === turn.messageId)
  const extras = streamed === undefined
    ? {}
    : {
        ...(streamed.actionCalls !== undefined ? { actionCalls: streamed.actionCalls } : {}),
        ...(streamed.components !== undefined ? { components: streamed.components } : {}),
        ...(streamed.error !== undefined ? { error: streamed.error } : {}),
        ...(streamed.delegationPrompt !== undefined ? { delegationPrompt: streamed.delegationPrompt } : {})
      }
  const settled = fresh.map((m) => (m === answer ? { ...m, ...extras, requestId: turn.requestId } : m))
  const kept = messages.filter((m) => m.pending !== true)
  const storedHuman = fresh.some((m) => m.type === 'human')
  const unpend = ({ pending: _pending, ...m }: ChatMessage): ChatMessage => m
  const question = messages.filter((m) => m.pending === true && m.type === 'human' && !storedHuman).map(unpend)
  const reply = messages.filter((m) => m.pending === true && m.type === 'ai' && answer === undefined).map(unpend)
  return [...kept, ...question, ...settled, ...reply]
}

export function appendNew (messages: ChatMessage[], stored: ChatMessage[]): ChatMessage[] {
  const known = new Set(messages.map((m) => m.id))
  const fresh = stored.filter((m) => !known.has(m.id))
  return fresh.length === 0 ? messages : [...messages, ...fresh]
}

/** Pending approvals are added or updated; decided, expired or cancelled ones leave the list. */
export function applyApproval (pending: ToolApproval[], approval: ToolApproval): ToolApproval[] {
  if (approval.status === 'pending') return upsert(pending, approval, (a) => a.toolCallId === approval.toolCallId)
  return pending.some((a) => a.toolCallId === approval.toolCallId)
    ? pending.filter((a) => a.toolCallId !== approval.toolCallId)
    : pending
}
