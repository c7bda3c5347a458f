import { Writable } from 'node:stream'

export interface CapturedLogs {
  /** Pass as the app's log destination (`logger.stream`, or an app's `logStream` build option). */
  stream: Writable
  /** Everything written so far. */
  text: () => string
  /** Every line written so far, parsed as JSON (pino writes one object a line). */
  lines: () => Array<Record<string, unknown>>
}

/** A pino destination that keeps every line, to assert on what reaches the logs (and what never does). */
export function captureLogs (): CapturedLogs {
  const chunks: string[] = []
  const stream = new Writable({
    write (chunk, _encoding, callback) {
      chunks.push(String(chunk))
      callback()
    }
  })
  const text = () => chunks.join('')
  const lines = () => text().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>)
  return { stream, text, lines }
}
