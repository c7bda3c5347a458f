import { connect } from 'node:net'
import { describe, expect, it } from 'vitest'
import { buildTestApp } from './helper.ts'

describe('graceful shutdown', () => {
  it('lets in-flight requests finish, answers requests that arrive meanwhile with 503, then stops ' +
    'listening', async () => {
    const app = await buildTestApp()
    let release!: () => void
    const released = new Promise<void>((resolve) => { release = resolve })
    let started!: () => void
    const inFlight = new Promise<void>((resolve) => { started = resolve })
    let closed = false
    app.addHook('onClose', async () => { closed = true })
    app.get('/slow', async () => {
      started()
      await released
      return { done: true }
    })
    await app.listen({ host: '127.0.0.1', port: 0 })
    const { port } = app.server.address() as { port: number }

    const socket = connect(port, '127.0.0.1')
    let received = ''
    socket.on('data', (chunk) => { received += String(chunk) })
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()))
    socket.write('GET /slow HTTP/1.1\r\nHost: test\r\n\r\n')
    await inFlight

    const closing = app.close()
    // A second request on the busy keep-alive connection arrives while the server drains.
    socket.write('GET /health HTTP/1.1\r\nHost: test\r\n\r\n')
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(closed).toBe(false)
    release()
    await closing
    await ended

    const statuses = [...received.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => m[1])
    expect(statuses).toEqual(['200', '503'])
    expect(received).toContain('{"done":true}')
    expect(closed).toBe(true)
    await expect(new Promise((resolve, reject) => {
      const probe = connect(port, '127.0.0.1')
      probe.on('connect', () => { probe.destroy(); resolve('connected') })
      probe.on('error', reject)
    })).rejects.toThrow(/ECONNREFUSED/)
  })
})
