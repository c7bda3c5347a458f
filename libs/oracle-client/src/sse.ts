import type { SseEventName } from '@impact/schemas'

export interface SseFrame {
  event: SseEventName
  data: unknown
  id?: number
}

// Kept local so the client carries no schema library at run time; the compiler checks it against SSE_EVENT_NAMES.
const ACCEPTED_NAMES: Record<SseEventName, true> = {
  message: true,
  reasoning: true,
  tool_call: true,
  action_call: true,
  error: true,
  done: true,
  run: true,
  'router.update': true,
  render_component: true,
  browser_tool_call: true,
  message_cache_invalidation: true,
  approval_request: true
}
const ACCEPTED = new Set<string>(Object.keys(ACCEPTED_NAMES))

/** The oracle wire's SSE framing (§3.2), which is not EventSource's: every frame needs an `event:` line. */
export class SseParser {
  #buffer = ''
  #event: string | undefined
  #data: string | undefined
  #id: number | undefined
  readonly #emit: (frame: SseFrame) => void

  constructor (emit: (frame: SseFrame) => void) {
    this.#emit = emit
  }

  push (text: string): void {
    this.#buffer += text
    let newline = this.#buffer.indexOf('\n')
    while (newline >= 0) {
      const line = this.#buffer.slice(0, newline)
      this.#buffer = this.#buffer.slice(newline + 1)
      this.#line(line)
      newline = this.#buffer.indexOf('\n')
    }
  }

  /** The last frame counts even without a closing blank line. */
  end (): void {
    if (this.#buffer !== '') this.#line(this.#buffer)
    this.#buffer = ''
    this.#dispatch()
  }

  #line (raw: string): void {
    const line = raw.trim()
    if (line === '' || line.startsWith(':')) {
      this.#dispatch()
      return
    }
    const colon = line.indexOf(':')
    if (colon < 0) return
    const field = line.slice(0, colon).trim()
    const value = line.slice(colon + 1).trim()
    if (field === 'event') this.#event = value
    else if (field === 'data') this.#data = value
    else if (field === 'id') this.#id = /^\d+$/.test(value) ? Number(value) : undefined
  }

  #dispatch (): void {
    const event = this.#event
    const data = this.#data
    const id = this.#id
    this.#event = undefined
    this.#data = undefined
    this.#id = undefined
    if (event === undefined || data === undefined || !ACCEPTED.has(event)) return
    let parsed: unknown
    try {
      parsed = JSON.parse(data)
    } catch {
      return
    }
    this.#emit({ event: event as SseEventName, data: parsed, ...(id !== undefined ? { id } : {}) })
  }
}

/** `onActivity` fires on every chunk, heartbeats included, so callers can tell a quiet stream from a dead one. */
export async function * readSse (
  body: ReadableStream<Uint8Array>,
  onActivity: () => void = () => {}
): AsyncGenerator<SseFrame> {
  const frames: SseFrame[] = []
  const parser = new SseParser((frame) => frames.push(frame))
  const decoder = new TextDecoder()
  const reader = body.getReader()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      onActivity()
      parser.push(decoder.decode(value, { stream: true }))
      while (frames.length > 0) yield frames.shift() as SseFrame
    }
    parser.push(decoder.decode())
    parser.end()
    while (frames.length > 0) yield frames.shift() as SseFrame
  } finally {
    // An early return (the caller stopped reading) must release the connection.
    await reader.cancel().catch(() => {})
    reader.releaseLock()
  }
}
