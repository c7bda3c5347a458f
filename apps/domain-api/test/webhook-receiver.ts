import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { onTestFinished } from 'vitest'
import { ADMIN_KEY, type TestApp } from './helper.ts'

export interface Received { headers: IncomingHttpHeaders, body: string }

/** A webhook receiver on loopback that answers 204, or 503 while `unavailable`, and can be shut and reopened. */
export async function startReceiver () {
  const received: Received[] = []
  let refused = 0
  let unavailable = false
  let server: Server | undefined
  let port = 0

  async function open () {
    server = createServer((request, response) => {
      const chunks: Buffer[] = []
      request.on('data', (chunk: Buffer) => chunks.push(chunk))
      request.on('end', () => {
        if (unavailable) {
          refused++
          response.writeHead(503).end()
          return
        }
        received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') })
        response.writeHead(204).end()
      })
    })
    await new Promise<void>((resolve) => server?.listen(port, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
  }

  async function shut () {
    server?.closeAllConnections()
    await new Promise<void>((resolve) => server?.close(() => resolve()) ?? resolve())
    server = undefined
  }

  await open()
  return {
    get url () { return `http://127.0.0.1:${port}/hooks` },
    received,
    refused: () => refused,
    setUnavailable (value: boolean) { unavailable = value },
    open,
    shut,
    /** Event ids received, each once (what a receiver deduplicating on X-Event-Id keeps). */
    eventIds: () => [...new Set(received.map((r) => String(r.headers['x-event-id'])))]
  }
}

/** What a receiver does: recompute the HMAC of "<timestamp>.<raw body>" and compare in constant time. */
export function verifySignature (secret: string, { headers, body }: Received): boolean {
  const timestamp = String(headers['x-timestamp'])
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`)
  const given = Buffer.from(String(headers['x-signature']))
  const fresh = Math.abs(Date.now() / 1000 - Number(timestamp)) < 300
  return fresh && given.length === expected.length && timingSafeEqual(given, expected)
}

/** Registers a hook as the admin; it must be accepted. */
export async function registerHook (t: TestApp, payload: Record<string, unknown>) {
  const res = await t.app.inject({ method: 'POST', url: '/v1/webhooks', headers: t.auth(ADMIN_KEY), payload })
  if (res.statusCode !== 201) throw new Error(`registering a hook failed: ${res.body}`)
  return res.json() as { id: string, secret: string, url: string, events: string[] }
}

/**
 * A receiver and a hook of `t` to it for this test: when the test ends the hook is deleted (the file's
 * app then delivers nothing to a closed port) and the receiver shut.
 */
export async function hookedReceiver (t: TestApp, subscription: { events: string[], secret?: string }) {
  const receiver = await startReceiver()
  onTestFinished(async () => { await receiver.shut() })
  const hook = await registerHook(t, { url: receiver.url, ...subscription })
  onTestFinished(async () => {
    await t.app.inject({ method: 'DELETE', url: `/v1/webhooks/${hook.id}`, headers: t.auth(ADMIN_KEY) })
  })
  return { receiver, hook }
}

/** Polls `check` until it returns true (or throws past the deadline). */
export async function waitFor (check: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs
  while (!await check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
