/** What the agent needs from a chat model: OpenAI chat-completions messages in, streamed chunks out. */

export interface ToolCallRequest { id: string, type: 'function', function: { name: string, arguments: string } }

export type ChatMessage =
  | { role: 'system', content: string }
  | { role: 'user', content: string }
  | { role: 'assistant', content: string | null, tool_calls?: ToolCallRequest[] }
  | { role: 'tool', tool_call_id: string, content: string }

export interface ToolDefinition { name: string, description: string, parameters: Record<string, unknown> }

export interface ChatRequest {
  model: string
  messages: ChatMessage[]
  tools: ToolDefinition[]
  signal: AbortSignal
}

export type ModelChunk =
  | { type: 'content', text: string }
  | { type: 'reasoning', text: string }
  | { type: 'tool_call', index: number, id?: string, name?: string, arguments?: string }
  /** Tokens the provider counted for the request (sent once, at the end, when it reports usage). */
  | { type: 'usage', inputTokens: number, outputTokens: number }

export interface ChatModel {
  readonly kind: 'openai-compatible' | 'offline'
  stream: (request: ChatRequest) => AsyncIterable<ModelChunk>
  close: () => Promise<void>
}

/** The provider failed (HTTP error, broken stream, timeout): reported to the client as an `error` event. */
export class UpstreamError extends Error {
  readonly status: number | undefined
  readonly retryable: boolean
  constructor (message: string, options: { status?: number, retryable?: boolean, cause?: unknown } = {}) {
    super(message, { cause: options.cause })
    this.name = 'UpstreamError'
    this.status = options.status
    this.retryable =
      options.retryable ?? (options.status === undefined || options.status === 429 || options.status >= 500)
  }
}
