export interface OutgoingSms {
  id: string
  to: string
  text: string
}

/** `retry` says whether trying again later may succeed; `reason` is safe to log. */
export type SendOutcome =
  | { ok: true, messageId: string | undefined }
  | { ok: false, retry: boolean, reason: string }

export type SmsSender = (sms: OutgoingSms, signal?: AbortSignal) => Promise<SendOutcome>

export interface AfricasTalkingOptions {
  baseUrl: string
  username: string
  apiKey: string
  senderId?: string | undefined
  timeoutMs?: number
}

// Per-recipient codes: 405 (balance) and 500-502 may succeed later; the others will not.
const SENT_CODES = new Set([100, 101, 102])
const RETRY_CODES = new Set([405, 407, 500, 501, 502])
const MAX_REASON = 80

interface MessagingReply {
  SMSMessageData?: {
    Message?: unknown
    Recipients?: Array<{ status?: unknown, statusCode?: unknown, messageId?: unknown }>
  }
}

const clip = (value: unknown): string => String(value).replace(/[^\x20-\x7e]/g, '?').slice(0, MAX_REASON)

const retryableHttp = (status: number): boolean => status >= 500 || status === 429 || status === 408 || status === 401

/** The API key travels in the `apiKey` header only, never into an outcome. */
export function createAfricasTalkingSender (options: AfricasTalkingOptions): SmsSender {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/version1/messaging`
  const timeoutMs = options.timeoutMs ?? 10_000

  return async function send (sms, signal) {
    const form = new URLSearchParams({ username: options.username, to: sms.to, message: sms.text })
    if (options.senderId !== undefined) form.set('from', options.senderId)
    const timeout = AbortSignal.timeout(timeoutMs)
    let response: Response
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: {
          accept: 'application/json',
          'content-type': 'application/x-www-form-urlencoded',
          apiKey: options.apiKey
        },
        body: form.toString(),
        signal: signal === undefined ? timeout : AbortSignal.any([signal, timeout])
      })
    } catch (error) {
      const name = error instanceof Error ? error.name : 'Error'
      return { ok: false, retry: true, reason: name === 'TimeoutError' ? 'timed out' : `unreachable (${clip(name)})` }
    }
    const body = await response.text().catch(() => '')
    if (!response.ok) return { ok: false, retry: retryableHttp(response.status), reason: `HTTP ${response.status}` }
    let reply: MessagingReply
    try {
      reply = JSON.parse(body) as MessagingReply
    } catch {
      return { ok: false, retry: true, reason: `HTTP ${response.status} without JSON` }
    }
    const recipient = reply.SMSMessageData?.Recipients?.[0]
    // No recipient: the whole request was refused.
    if (recipient === undefined) {
      return { ok: false, retry: false, reason: `no recipient: ${clip(reply.SMSMessageData?.Message ?? 'no data')}` }
    }
    const code = Number(recipient.statusCode)
    if (SENT_CODES.has(code)) {
      return { ok: true, messageId: typeof recipient.messageId === 'string' ? recipient.messageId : undefined }
    }
    return { ok: false, retry: RETRY_CODES.has(code), reason: `${clip(recipient.status ?? 'failed')} (${code})` }
  }
}
