import { request as httpRequest, type IncomingMessage } from 'node:http'
import { describe, expect, it, onTestFinished } from 'vitest'
import { WebSocket } from 'ws'
import { LATEST_BLOCK_PATH } from '../../src/services/block-height.ts'
import { nodeAndGateway } from '../helper.ts'

const PATH = '/cosmos/base/tendermint/v1beta1/blocks/stream'

interface SseClient { events: Array<{ id: string, data: string }>, response: IncomingMessage, close: () => void }

function openSse (base: string, headers: Record<string, string> = {}): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${PATH}`, { headers: { accept: 'text/event-stream', ...headers } }, (response) => {
      const client: SseClient = { events: [], response, close: () => req.destroy() }
      let buffer = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => {
        buffer += chunk
        let end
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const id = /^id: (.*)$/m.exec(block)?.[1]
          const data = /^data: (.*)$/m.exec(block)?.[1]
          if (id !== undefined && data !== undefined) client.events.push({ id, data })
        }
      })
      response.on('error', () => {})
      resolve(client)
    })
    req.on('error', reject)
    req.end()
  })
}

async function until (check: () => boolean, ms = 5000) {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

async function streaming (startHeight = 500) {
  const { node, app } = await nodeAndGateway({ startHeight }, { CHAIN_STREAM_POLL_MS: '100' })
  const base = await app.listen({ host: '127.0.0.1', port: 0 })
  return { node, app, base, polls: () => node.calls.get(LATEST_BLOCK_PATH) ?? 0 }
}

describe('block stream', () => {
  it('feeds 100 SSE clients from one upstream poll and stops with the last client', async () => {
    const { node, base, polls } = await streaming()
    const clients = await Promise.all(Array.from({ length: 100 }, async () => await openSse(base)))
    onTestFinished(() => { for (const client of clients) client.close() })
    expect(clients[0]!.response.statusCode).toBe(200)
    expect(clients[0]!.response.headers['content-type']).toMatch(/^text\/event-stream/)
    await until(() => clients.every((client) => client.events.length >= 1))
    node.setHeight(501)
    await until(() => clients.every((client) => client.events.length >= 2))
    for (const client of clients) {
      expect(client.events).toEqual([{ id: '500', data: '{"height":"500"}' }, { id: '501', data: '{"height":"501"}' }])
    }
    // One poll per interval for everyone, not one per client.
    const used = polls()
    expect(used).toBeGreaterThan(0)
    expect(used).toBeLessThan(60)
    for (const client of clients) client.close()
    await new Promise((resolve) => setTimeout(resolve, 300))
    const stopped = polls()
    await new Promise((resolve) => setTimeout(resolve, 400))
    expect(polls()).toBe(stopped)
  })

  it('replays the kept blocks after Last-Event-ID', async () => {
    const { node, base } = await streaming()
    const first = await openSse(base)
    onTestFinished(() => first.close())
    await until(() => first.events.length === 1)
    for (const height of [501, 502]) {
      node.setHeight(height)
      await until(() => first.events.length === height - 499)
    }
    const resumed = await openSse(base, { 'last-event-id': '500' })
    onTestFinished(() => resumed.close())
    await until(() => resumed.events.length >= 2)
    expect(resumed.events.map((event) => event.id)).toEqual(['501', '502'])
  })

  it('refuses a Last-Event-ID that is not a height', async () => {
    const { app } = await nodeAndGateway()
    const res = await app.inject({ method: 'GET', url: PATH, headers: { 'last-event-id': 'abc' } })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toMatchObject({ code: 3 })
  })

  it('is gated by API keys and gone when GetLatestBlock is denied', async () => {
    const gated = await nodeAndGateway({}, { CHAIN_API_KEYS: 'stream-key-0000000001' })
    const refused = await gated.app.inject({ method: 'GET', url: PATH })
    expect(refused.statusCode).toBe(401)
    expect(refused.json()).toMatchObject({ code: 16 })
    const denied = await nodeAndGateway({}, { CHAIN_METHODS_DENY: 'cosmos.base.tendermint.' })
    const res = await denied.app.inject({ method: 'GET', url: PATH })
    expect(res.statusCode).toBe(404)
    expect(res.json()).toEqual({ code: 5, message: 'Not Found', details: [] })
  })

  it('sends the same blocks over WebSocket', async () => {
    const { node, base, polls } = await streaming()
    const sse = await openSse(base)
    onTestFinished(() => sse.close())
    const socket = new WebSocket(`${base.replace('http', 'ws')}${PATH}`)
    const messages: string[] = []
    socket.on('message', (data) => messages.push(String(data)))
    onTestFinished(() => socket.terminate())
    await until(() => messages.length === 1 && sse.events.length === 1)
    node.setHeight(501)
    await until(() => messages.length === 2 && sse.events.length === 2)
    expect(messages).toEqual(['{"height":"500"}', '{"height":"501"}'])
    expect(polls()).toBeLessThan(60)
  })
})
