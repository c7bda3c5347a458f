import type { FastifyBaseLogger } from 'fastify'
import type { SharedState } from '@impact/shared-state'
import type { Language } from '../../db/types.ts'
import { fill, type MessageRef } from '../menu/i18n.ts'
import type { Keyring } from '../pin-keyring.ts'
import { createAfricasTalkingSender, type SmsSender } from './africastalking.ts'
import { SMS_MESSAGES, type SmsMessageKey } from './sms-messages.ts'
import { createSmsQueue, type SmsKind, type SmsRecord } from './sms-queue.ts'

/** The SMS the gateway sends on its own; each names what it is about, which also makes its idempotency id. */
export type SmsNotice =
  /** `recoveredIn`: the session of a Forgot Customer ID, sent once per session (sign-up's once per account). */
  | { kind: 'customerId', app: string, customerId: string, recoveredIn?: string | undefined }
  | { kind: 'temporaryPin', app: string, customerId: string, pin: string, hours: number, expiresAt: Date }
  | { kind: 'lockout', app: string, customerId: string, wait: MessageRef, lockedUntil: Date }
  | { kind: 'registration', app: string, one: Record<Language, string>, serial: string, did: string }

interface Composed { key: SmsMessageKey, params: Record<string, string | number | MessageRef>, id: string }

/** Text key, placeholders and idempotency id of a notice: a retried hop or request queues the same id. */
function compose (notice: SmsNotice, language: Language): Composed {
  switch (notice.kind) {
    case 'customerId':
      return {
        key: 'customerId',
        params: { app: notice.app, id: notice.customerId },
        id: notice.recoveredIn === undefined
          ? `customer-id:${notice.customerId}`
          : `customer-id:${notice.customerId}:recovered:${notice.recoveredIn}`
      }
    case 'temporaryPin':
      return {
        key: 'temporaryPin',
        params: { app: notice.app, id: notice.customerId, pin: notice.pin, hours: notice.hours },
        id: `temporary-pin:${notice.customerId}:${notice.expiresAt.getTime()}`
      }
    case 'lockout':
      return {
        key: 'lockout',
        params: { app: notice.app, id: notice.customerId, wait: notice.wait },
        id: `lockout:${notice.customerId}:${notice.lockedUntil.getTime()}`
      }
    case 'registration':
      return {
        key: 'registration',
        params: { app: notice.app, one: notice.one[language], serial: notice.serial, did: notice.did },
        id: `registration:${notice.did}`
      }
  }
}

export interface SmsConfig {
  SMS_PROVIDER?: 'africastalking' | undefined
  SMS_BASE_URL?: string | undefined
  SMS_USERNAME?: string | undefined
  SMS_API_KEY?: string | undefined
  SMS_SENDER_ID?: string | undefined
  SMS_MAX_ATTEMPTS: number
  SMS_RETRY_BASE_MS: number
}

export interface SmsServiceOptions {
  config: SmsConfig
  state: SharedState
  keyring: Keyring
  /** The language chosen on a phone (the account's language), for notices sent outside a session. */
  language: (phone: string) => Promise<Language>
  log: FastifyBaseLogger
  /** Hears of each SMS settled (the simulator's recent list in development). */
  onSettled?: (sms: SmsRecord) => void
}

function senderFor (config: SmsConfig): SmsSender | undefined {
  const { SMS_PROVIDER, SMS_BASE_URL, SMS_USERNAME, SMS_API_KEY } = config
  // config.ts refuses a provider without the rest, so these are set together.
  if (SMS_PROVIDER !== 'africastalking' || SMS_BASE_URL === undefined || SMS_USERNAME === undefined ||
    SMS_API_KEY === undefined) return undefined
  return createAfricasTalkingSender({
    baseUrl: SMS_BASE_URL,
    username: SMS_USERNAME,
    apiKey: SMS_API_KEY,
    senderId: config.SMS_SENDER_ID
  })
}

/**
 * SMS to users: `enqueue` for any text (menus compose their own, e.g. registration receipts), `notify`
 * for the gateway's notices in the phone's language. Both only queue (sms-queue.ts): no hop waits on a send.
 */
export function createSmsService (options: SmsServiceOptions) {
  const { log } = options
  const queue = createSmsQueue({
    state: options.state,
    keyring: options.keyring,
    sender: senderFor(options.config),
    maxAttempts: options.config.SMS_MAX_ATTEMPTS,
    retryBaseMs: options.config.SMS_RETRY_BASE_MS,
    log,
    ...(options.onSettled !== undefined ? { onSettled: options.onSettled } : {})
  })
  const pending = new Set<Promise<unknown>>()

  /**
   * Queues a notice for `phone` in `language` (else the phone's own) and resolves true once queued, false
   * when SMS is off or queuing failed (logged). Never rejects.
   */
  async function queueNotice (phone: string, notice: SmsNotice, language?: Language): Promise<boolean> {
    const work = (async () => {
      const lang = language ?? await options.language(phone)
      const { key, params, id } = compose(notice, lang)
      const outcome = await queue.enqueue(phone, fill(lang, SMS_MESSAGES[lang][key], params), notice.kind, { id })
      return outcome !== 'off'
    })().catch((error: unknown) => {
      log.error({ err: error, kind: notice.kind }, 'sms could not be queued')
      return false
    })
    pending.add(work)
    work.finally(() => pending.delete(work)).catch(() => {})
    return await work
  }

  return {
    enabled: queue.enabled,

    /**
     * Queues `text` for `phone` (a hop may await it: it writes two keys). With `id`, the same SMS queued
     * again within a day is `duplicate`; `off` when SMS is off; `failed` when the state could not be
     * written (logged). Never rejects.
     */
    async enqueue (phone: string, text: string, kind: SmsKind, opts: { id?: string } = {}) {
      return await queue.enqueue(phone, text, kind, opts).catch((error: unknown) => {
        log.error({ err: error, kind }, 'sms could not be queued')
        return 'failed' as const
      })
    },

    queueNotice,

    /** `queueNotice` for a hop, which goes on at once: the notice is queued in the background. */
    notify (phone: string, notice: SmsNotice, language?: Language): void {
      queueNotice(phone, notice, language).catch(() => {})
    },

    start: queue.start,

    /** Waits for notices being queued, then stops the queue's drain (call before the state closes). */
    async close (): Promise<void> {
      await Promise.allSettled([...pending])
      await queue.close()
    }
  }
}

export type SmsService = ReturnType<typeof createSmsService>
export type { SmsKind, SmsRecord }
