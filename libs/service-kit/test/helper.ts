import { Writable } from 'node:stream'
import { createApp, type CreateAppOptions } from '../src/index.ts'

export interface CapturedLogs { stream: Writable, lines: () => Array<Record<string, unknown>>, text: () => string }

/** A pino destination that keeps every line, to assert on what reaches the logs. */
export function captureLogs (): CapturedLogs {
  const chunks: string[] = []
  const stream = new Writable({
    write (chunk, _encoding, callback) {
      chunks.push(String(chunk))
      callback()
    }
  })
  const text = () => chunks.join('')
  return { stream, text, lines: () => text().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) }
}

export const testAppOptions = (overrides: Partial<CreateAppOptions> = {}): CreateAppOptions => ({
  config: { NODE_ENV: 'test', LOG_LEVEL: 'silent', TRUST_PROXY_ENABLED: false },
  docs: { title: 'Kit test', version: '1.0.0' },
  ...overrides
})

export const buildTestApp = async (overrides: Partial<CreateAppOptions> = {}) => await createApp(testAppOptions(overrides))
