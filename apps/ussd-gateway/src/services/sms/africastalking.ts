/** One SMS to send: its idempotency id, the recipient (E.164) and the text. */
export interface OutgoingSms {
  id: string
  to: string
  text: string
}

/**
 * How a send went. `retry` says whether trying again later may succeed (the provider or the network
 * failed, the balance ran out) or not (a number the provider refuses). `reason` is safe to log.
 */
export type SendOutcome =
  | { ok: true, messageId: string | undefined }
  | { ok: false, retry: boolean, reason: string }

export type SmsSender = (sms: OutgoingSms, signal?: AbortSignal) => Promise<SendOutcome>

export interface AfricasTalkingOptions {
  baseUrl: string
  username: string
  apiKey: string
  senderId?: string | undefined
  /** Longest a send may take before it counts as a failure to retry. */
  timeoutMs?: number
}

// Per-recipient codes of the bulk SMS API: 100 Processed, 101 Sent, 102 Queued succeed; 405 (balance),
// 500-502 (the provider's or a gateway's failure) may succeed later; the rest (invalid or blacklisted
// number, sender id, do-not-disturb, risk hold) will not.
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

/** An HTTP status that may pass: the provider's or a proxy's failure, throttling, or credentials being fixed. */
const retryableHttp = (status: number): boolean => status >= 500 || status === 429 || status === 408 || status === 401

/**
 * Africa's Talking's bulk SMS API: `POST {base}/version1/messaging`, form fields `username`, `to`,
 * `message` and `from`, the key in the `apiKey` header, and a JSON answer listing each recipient's
 * `status`/`statusCode`/`messageId`. The key travels in that header only and never into an outcome.
 */
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
    // No recipient: the whole request was refused (e.g. `InvalidPhoneNumber` as the message).
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
