import { parseSse } from './harness.ts'

export interface StreamResult {
  status: number
  headers: Headers
  text: string
  frames: Array<{ event: string, data: any }>
}

/** POSTs a streaming message over real HTTP and reads the SSE body to its end. */
export async function streamMessage (
  base: string,
  sessionId: string,
  headers: Record<string, string>,
  body: Record<string, unknown>
): Promise<StreamResult> {
  const res = await fetch(`${base}/messages/${encodeURIComponent(sessionId)}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ stream: true, ...body })
  })
  const text = await res.text()
  return {
    status: res.status,
    headers: res.headers,
    text,
    frames: res.headers.get('content-type')?.startsWith('text/event-stream') === true ? parseSse(text) : []
  }
}

/** Opens a stream and hands back a reader that resolves frames as they arrive. */
export async function openStream (
  base: string,
  sessionId: string,
  headers: Record<string, string>,
  body: Record<string, unknown>
) {
  const controller = new AbortController()
  const res = await fetch(`${base}/messages/${encodeURIComponent(sessionId)}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ stream: true, ...body }),
    signal: controller.signal
  })
  const reader = (res.body as ReadableStream<Uint8Array>).getReader()
  const decoder = new TextDecoder()
  let text = ''
  return {
    response: res,
    /** Reads until a frame named `event` has arrived (or the stream ends). */
    async until (event: string) {
      while (!parseSse(text).some((f) => f.event === event)) {
        const { done, value } = await reader.read()
        if (done) break
        text += decoder.decode(value, { stream: true })
      }
      return parseSse(text)
    },
    async rest () {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        text += decoder.decode(value, { stream: true })
      }
      return { text, frames: parseSse(text) }
    },
    disconnect: () => { controller.abort() }
  }
}
