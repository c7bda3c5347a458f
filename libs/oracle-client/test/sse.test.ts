import { describe, expect, it } from 'vitest'
import { readSse, SseParser, type SseFrame } from '../src/index.ts'

const parse = (...chunks: string[]) => {
  const frames: SseFrame[] = []
  const parser = new SseParser((frame) => frames.push(frame))
  for (const chunk of chunks) parser.push(chunk)
  parser.end()
  return frames
}

describe('SSE parser (oracle-wire §3.2)', () => {
  it('dispatches a frame at a blank line, with its event name, parsed data and id', () => {
    expect(parse(': heartbeat\n\nevent: message\nid: 7\ndata: {"content":"Hel"}\n\n')).toEqual([
      { event: 'message', data: { content: 'Hel' }, id: 7 }
    ])
  })

  it('keeps only the last data line of a frame', () => {
    expect(parse('event: message\ndata: {"content":"a"}\ndata: {"content":"b"}\n\n')).toEqual([
      { event: 'message', data: { content: 'b' } }
    ])
  })

  it('dispatches at a comment line too', () => {
    expect(parse('event: done\ndata: {}\n: heartbeat\n')).toEqual([{ event: 'done', data: {} }])
  })

  it('never dispatches a frame without an event line, nor unknown events, nor data that is not JSON', () => {
    expect(parse('data: {"content":"x"}\n\nevent: surprise\ndata: {}\n\nevent: message\ndata: {broken\n\n')).toEqual([])
  })

  it('flushes the trailing frame at the end of the body, even without a final newline', () => {
    expect(parse('event: message\ndata: {"content":"end"}')).toEqual([{ event: 'message', data: { content: 'end' } }])
  })

  it('trims lines (CRLF, indentation) and copes with chunks split anywhere', () => {
    const text = 'event: reasoning\r\n  data: {"reasoning":"x","isComplete":false}\r\n\r\n' +
      'event: router.update\ndata: {"step":"Thinking..."}\n\n'
    const whole = parse(text)
    expect(whole.map((f) => f.event)).toEqual(['reasoning', 'router.update'])
    for (let cut = 1; cut < text.length; cut += 3) expect(parse(text.slice(0, cut), text.slice(cut))).toEqual(whole)
  })

  it('reads a byte stream whose multi-byte characters straddle chunks', async () => {
    const bytes = new TextEncoder().encode('event: message\ndata: {"content":"héllo ✓"}\n\nevent: done\ndata: {}\n\n')
    const body = new ReadableStream<Uint8Array>({
      start (controller) {
        for (let i = 0; i < bytes.length; i += 5) controller.enqueue(bytes.subarray(i, i + 5))
        controller.close()
      }
    })
    const frames: SseFrame[] = []
    for await (const frame of readSse(body)) frames.push(frame)
    expect(frames).toEqual([{ event: 'message', data: { content: 'héllo ✓' } }, { event: 'done', data: {} }])
  })
})
