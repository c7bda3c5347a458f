import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One scripted answer of the loopback model. */
export type Script =
  | { content: string[], reasoning?: string[], delayMs?: number, omitDone?: boolean }
  | { toolCalls: Array<{ id: string, name: string, args: Record<string, unknown> }>, content?: string[] }
  | { status: number, error: string }
  | { content: string[], breakAfter: number }
  | { chunkError: string, after: string[] }

/** A model answer long enough to be interrupted: `words` content deltas, 20 ms apart. */
export const slowAnswer = (words = 200): Script =>
  ({ content: Array.from({ length: words }, (_, i) => `w${i} `), delayMs: 20 })

export interface LoopbackLlm {
  url: string
  requests: Array<{ headers: IncomingMessage['headers'], body: any }>
  enqueue: (...scripts: Script[]) => void
  /** Connections the model had open while a response was streaming and then saw closed early. */
  cancelled: () => number
  close: () => Promise<void>
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => {
  const body = {
    id: 'chatcmpl-loop',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'loop',
    choices: [{ index: 0, delta, finish_reason: finish }]
  }
  return `data: ${JSON.stringify(body)}\n\n`
}

interface RequestBody {
  messages: Array<{ role: string, content: string | null }>
  stream_options?: { include_usage?: boolean }
}

const sleep = async (ms: number) => { await new Promise((resolve) => setTimeout(resolve, ms)) }

/**
 * A real HTTP server on 127.0.0.1 speaking the OpenAI chat-completions streaming protocol:
 * content deltas, reasoning deltas, tool-call deltas split across chunks, HTTP errors, error
 * chunks and broken streams. Unscripted requests are answered with an echo of the last user message;
 * `GET …/models` lists one model.
 */
export async function startLoopbackLlm (
  options: { defaultScript?: (lastUserMessage: string) => Script, keepRequests?: boolean } = {}
): Promise<LoopbackLlm> {
  const queue: Script[] = []
  const requests: LoopbackLlm['requests'] = []
  let cancelled = 0

  /** The usage chunk of a provider asked for it: words of the prompt in, deltas streamed out. */
  const usage = (body: RequestBody, deltas: number) => body.stream_options?.include_usage !== true
    ? ''
    : `data: ${JSON.stringify({
        choices: [],
        usage: {
          prompt_tokens: body.messages.reduce((n, m) => n + (m.content ?? '').split(/\s+/).filter(Boolean).length, 0),
          completion_tokens: deltas
        }
      })}\n\n`

  async function answer (script: Script, res: ServerResponse, body: RequestBody) {
    if ('status' in script) {
      res.writeHead(script.status, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { message: script.error, type: 'server_error' } }))
      return
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    let closed = false
    res.on('close', () => { if (!res.writableFinished) { closed = true; cancelled++ } })
    res.write(chunk({ role: 'assistant', content: '' }))
    if ('chunkError' in script) {
      for (const text of script.after) res.write(chunk({ content: text }))
      res.end(`data: ${JSON.stringify({ error: { message: script.chunkError } })}\n\n`)
      return
    }
    if ('toolCalls' in script) {
      for (const text of script.content ?? []) res.write(chunk({ content: text }))
      script.toolCalls.forEach((call, index) => {
        const args = JSON.stringify(call.args)
        const half = Math.floor(args.length / 2)
        const head = { name: call.name, arguments: args.slice(0, half) }
        res.write(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: head }] }))
        res.write(chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] }))
      })
      const deltas = (script.content ?? []).length + script.toolCalls.length * 2
      res.end(`${chunk({}, 'tool_calls')}${usage(body, deltas)}data: [DONE]\n\n`)
      return
    }
    const reasoning = 'reasoning' in script ? script.reasoning ?? [] : []
    for (const text of reasoning) res.write(chunk({ reasoning_content: text }))
    let sent = 0
    for (const text of script.content) {
      if (closed) return
      if ('breakAfter' in script && sent === script.breakAfter) { await sleep(30); res.socket?.destroy(); return }
      res.write(chunk({ content: text }))
      sent++
      if ('delayMs' in script && script.delayMs !== undefined) await sleep(script.delayMs)
    }
    if ('omitDone' in script && script.omitDone === true) { res.end(); return }
    res.end(`${chunk({}, 'stop')}${usage(body, reasoning.length + sent)}data: [DONE]\n\n`)
  }

  const server: Server = createServer((req, res) => {
    // What the runtime's health check probes.
    if (req.method === 'GET' && req.url?.endsWith('/models') === true) {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'loop', object: 'model' }] }))
      return
    }
    let raw = ''
    req.on('data', (c) => { raw += String(c) })
    req.on('end', () => {
      const body = JSON.parse(raw) as RequestBody
      if (options.keepRequests !== false) requests.push({ headers: req.headers, body })
      const lastUser = [...body.messages].reverse().find((m) => m.role === 'user')?.content ?? ''
      const script = queue.shift() ?? options.defaultScript?.(lastUser) ?? { content: ['Echo: ', lastUser] }
      answer(script, res, body).catch(() => res.destroy())
    })
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    enqueue: (...scripts) => { queue.push(...scripts) },
    cancelled: () => cancelled,
    close: async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  }
}
