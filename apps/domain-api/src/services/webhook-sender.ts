import { createHmac } from 'node:crypto'
import http from 'node:http'
import https from 'node:https'
import { isIP } from 'node:net'
import { startOutboundSpan } from '@impact/service-kit'
import { isNonPublicAddress, publicOnlyLookup } from './webhook-targets.ts'

/** Hex HMAC-SHA256, keyed with the hook's secret (its UTF-8 bytes), of `<timestamp>.<raw body>`. */
export const signPayload = (secret: string, timestamp: number, body: string): string =>
  createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')

export interface Delivery {
  url: string
  secret: string
  body: string
  eventId: string
  eventType: string
  deliveryId: string
  attempt: number
}

export interface SendResult { statusCode: number | null, error: string | null, durationMs: number }

export interface SenderOptions { timeoutMs: number, allowPrivate: boolean }

/**
 * Posts signed deliveries. Redirects are not followed (a 3xx is a failed attempt) and, unless
 * private targets are allowed, every connection goes to a public address only.
 */
export function createWebhookSender ({ timeoutMs, allowPrivate }: SenderOptions) {
  const lookup = allowPrivate ? undefined : publicOnlyLookup()
  const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) }
  const shutdown = new AbortController()

  function post (url: URL, headers: Record<string, string>, body: string, timeout: AbortSignal): Promise<number> {
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1')
    if (!allowPrivate && isIP(host) !== 0 && isNonPublicAddress(host)) {
      return Promise.reject(new Error('target is a non-public address'))
    }
    const secure = url.protocol === 'https:'
    const span = startOutboundSpan('POST', {
      'http.request.method': 'POST',
      'server.address': host,
      'server.port': Number(url.port !== '' ? url.port : secure ? 443 : 80)
    })
    return new Promise<number>((resolve, reject) => {
      const request = (secure ? https : http).request(url, {
        method: 'POST',
        headers: { ...headers, ...span?.headers, 'content-length': String(Buffer.byteLength(body)) },
        agent: secure ? agents.https : agents.http,
        signal: AbortSignal.any([shutdown.signal, timeout]),
        ...(lookup !== undefined ? { lookup } : {})
      }, (response) => {
        // Only the status counts; the body is read and dropped so the connection can be reused.
        response.resume()
        resolve(response.statusCode ?? 0)
      })
      request.on('error', reject)
      request.end(body)
    }).then((status) => {
      span?.end({ attributes: { 'http.response.status_code': status }, failed: status >= 400 })
      return status
    }, (error: unknown) => {
      span?.end({ error })
      throw error
    })
  }

  return {
    async send (delivery: Delivery): Promise<SendResult> {
      const started = Date.now()
      const timestamp = Math.floor(started / 1000)
      const headers = {
        'content-type': 'application/json',
        'user-agent': 'domain-api-webhooks/1',
        'x-event-id': delivery.eventId,
        'x-event-type': delivery.eventType,
        'x-delivery-id': delivery.deliveryId,
        'x-delivery-attempt': String(delivery.attempt),
        'x-timestamp': String(timestamp),
        'x-signature': `sha256=${signPayload(delivery.secret, timestamp, delivery.body)}`
      }
      const timeout = AbortSignal.timeout(timeoutMs)
      try {
        const statusCode = await post(new URL(delivery.url), headers, delivery.body, timeout)
        return { statusCode, error: null, durationMs: Date.now() - started }
      } catch (error) {
        const message = shutdown.signal.aborted
          ? 'interrupted by shutdown'
          : timeout.aborted ? `no answer within ${timeoutMs} ms` : describe(error)
        return { statusCode: null, error: message, durationMs: Date.now() - started }
      }
    },
    close () {
      shutdown.abort()
      agents.http.destroy()
      agents.https.destroy()
    }
  }
}

/** A connection error as a short public line (no stack, no secrets: the URL is the admin's own). */
function describe (error: unknown): string {
  const { code, message } = error as { code?: string, message?: string }
  return (code !== undefined ? `${code}: ` : '') + (message ?? 'request failed').slice(0, 200)
}
