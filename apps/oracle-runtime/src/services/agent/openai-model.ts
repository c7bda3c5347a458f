import { Agent, request } from 'undici'
import { UpstreamError, type ChatModel, type ChatRequest, type ModelChunk } from './model.ts'

export interface OpenAiModelOptions {
  baseUrl: string
  apiKey?: string | undefined
  /** How long the provider may take to send response headers and then each chunk. */
  timeoutMs: number
}

interface Delta {
  content?: string | null
  reasoning_content?: string | null
  reasoning?: string | null
  tool_calls?: Array<{ index?: number, id?: string, function?: { name?: string, arguments?: string } }>
}
interface StreamChunk {
  choices?: Array<{ delta?: Delta, finish_reason?: string | null }>
  error?: { message?: string }
  usage?: { prompt_tokens?: number, completion_tokens?: number } | null
}

function describe (text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: string } | string, message?: string }
    const message = typeof body.error === 'string' ? body.error : body.error?.message ?? body.message
    if (message !== undefined) return message.slice(0, 300)
  } catch {}
  return text.slice(0, 300) || 'no details'
}

/**
 * Any OpenAI-compatible `/chat/completions` endpoint (OpenAI, OpenRouter, vLLM, Ollama, LiteLLM…),
 * streamed over undici with a keep-alive pool. Content, reasoning (`reasoning_content` or
 * `reasoning`) and tool-call deltas come out as chunks; HTTP errors, `error` chunks and streams
 * that end before `[DONE]` or a finish reason become `UpstreamError`s.
 */
export function createOpenAiModel (options: OpenAiModelOptions): ChatModel {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`
  const dispatcher = new Agent({
    keepAliveTimeout: 30_000,
    connections: 64,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs
  })

  async function * stream (req: ChatRequest): AsyncIterable<ModelChunk> {
    const body = {
      model: req.model,
      messages: req.messages,
      stream: true,
      // The token counts come in a last chunk (OpenAI and most compatible servers; others ignore it).
      stream_options: { include_usage: true },
      ...(req.tools.length > 0 ? { tools: req.tools.map((t) => ({ type: 'function', function: t })) } : {})
    }
    let response: Awaited<ReturnType<typeof request>>
    try {
      response = await request(url, {
        method: 'POST',
        dispatcher,
        signal: req.signal,
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream',
          ...(options.apiKey !== undefined ? { authorization: `Bearer ${options.apiKey}` } : {})
        },
        body: JSON.stringify(body)
      })
    } catch (error) {
      if (req.signal.aborted) throw error
      throw new UpstreamError(`could not reach the model provider (${(error as Error).message})`, { cause: error })
    }
    if (response.statusCode !== 200) {
      const text = await response.body.text().catch(() => '')
      // Credential problems are the operator's business: their details (masked keys, account ids) stay in the logs.
      const detail =
        response.statusCode === 401 || response.statusCode === 403
          ? "the provider refused the oracle's credentials"
          : describe(text)
      throw new UpstreamError(`provider answered ${response.statusCode}: ${detail}`, {
        status: response.statusCode,
        cause: new Error(describe(text))
      })
    }
    let buffer = ''
    let finished = false
    try {
      for await (const piece of response.body) {
        buffer += String(piece)
        let newline = buffer.indexOf('\n')
        while (newline >= 0) {
          const line = buffer.slice(0, newline).trim()
          buffer = buffer.slice(newline + 1)
          newline = buffer.indexOf('\n')
          if (!line.startsWith('data:')) continue
          const data = line.slice(5).trim()
          if (data === '[DONE]') { finished = true; continue }
          let chunk: StreamChunk
          try {
            chunk = JSON.parse(data) as StreamChunk
          } catch {
            throw new UpstreamError('provider sent a malformed stream chunk')
          }
          if (chunk.error !== undefined) throw new UpstreamError(`provider error: ${chunk.error.message ?? 'unknown'}`)
          if (chunk.usage != null) {
            const { prompt_tokens: input = 0, completion_tokens: output = 0 } = chunk.usage
            yield { type: 'usage', inputTokens: input, outputTokens: output }
          }
          for (const choice of chunk.choices ?? []) {
            const delta = choice.delta ?? {}
            const reasoning = delta.reasoning_content ?? delta.reasoning
            if (typeof reasoning === 'string' && reasoning !== '') yield { type: 'reasoning', text: reasoning }
            if (typeof delta.content === 'string' && delta.content !== '') {
              yield { type: 'content', text: delta.content }
            }
            for (const call of delta.tool_calls ?? []) {
              yield {
                type: 'tool_call',
                index: call.index ?? 0,
                id: call.id,
                name: call.function?.name,
                arguments: call.function?.arguments
              }
            }
            if (choice.finish_reason !== undefined && choice.finish_reason !== null) finished = true
          }
        }
      }
    } catch (error) {
      if (req.signal.aborted || error instanceof UpstreamError) throw error
      throw new UpstreamError(`the provider's stream broke (${(error as Error).message})`, { cause: error })
    }
    if (!finished) throw new UpstreamError('the provider\'s stream ended before the answer was complete')
  }

  return {
    kind: 'openai-compatible',
    stream,
    close: async () => { await dispatcher.close() }
  }
}
