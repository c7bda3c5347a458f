import { Writable } from 'node:stream'
import Fastify from 'fastify'
import { describe, expect, it, onTestFinished } from 'vitest'
import { lazyChildLoggerFactory } from '../src/lazy-logger.ts'

describe('lazy request loggers', () => {
  it('log with the request id at and above the level, and nothing below it', async () => {
    const lines: Array<Record<string, unknown>> = []
    const stream = new Writable({
      write (chunk, _encoding, callback) {
        lines.push(JSON.parse(String(chunk)) as Record<string, unknown>)
        callback()
      }
    })
    const app = Fastify({ logger: { level: 'warn', stream }, genReqId: () => 'req-1', childLoggerFactory: lazyChildLoggerFactory })
    onTestFinished(async () => { await app.close() })
    app.get('/', async (request) => {
      request.log.info('quiet')
      request.log.warn({ detail: 1 }, 'loud')
      expect(request.log.level).toBe('warn')
      return { ok: true }
    })
    expect((await app.inject({ method: 'GET', url: '/' })).statusCode).toBe(200)
    expect(lines.map((l) => l.msg)).toEqual(['loud'])
    expect(lines[0]).toMatchObject({ reqId: 'req-1', detail: 1, level: 40 })
  })
})
