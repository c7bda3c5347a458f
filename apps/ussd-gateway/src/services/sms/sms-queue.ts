import { randomUUID } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type { SharedState } from '@impact/shared-state'
import type { Keyring } from '../pin-keyring.ts'
import { openRecord, sealRecord } from '../sealed-record.ts'
import type { SendOutcome, SmsSender } from './africastalking.ts'

/** What an SMS is for, in logs and the simulator (`customerId`, `temporaryPin`, `lockout`, `registration`, …). */
export type SmsKind = string

/** What became of an SMS, as the simulator's list shows it. */
export type SmsStatus = 'sent' | 'failed' | 'off'
export interface SmsRecord { at: string, to: string, kind: SmsKind, text: string, status: SmsStatus }

export interface SmsQueueOptions {
  state: SharedState
  keyring: Keyring
  /** Undefined when SMS is off: nothing is queued. */
  sender: SmsSender | undefined
  maxAttempts: number
  retryBaseMs: number
  log: FastifyBaseLogger
  /** Hears of every SMS sent, given up, or not sent because SMS is off (the simulator's list). */
  onSettled?: (sms: SmsRecord) => void
}

const QUEUE = 'sms:q'
const JOB = 'sms:j:'
/** A pending job outlives its longest retry schedule; then it is only garbage. */
const JOB_TTL_MS = 2 * 24 * 60 * 60 * 1000
/** A settled job's id is remembered this long, so the same id enqueued again is not sent twice. */
const DONE_TTL_MS = 24 * 60 * 60 * 1000
/** A claimed job falls due again after this, should its replica die mid-send (sends time out well before). */
const LEASE_MS = 60_000
const MAX_BACKOFF_MS = 60 * 60 * 1000
const BATCH = 20

interface Job { attempts: number, kind: SmsKind, sealed?: string, done?: 'sent' | 'failed' }
interface Content { to: string, text: string }

function parseJob (stored: string | null): Job | undefined {
  if (stored === null) return undefined
  try {
    return JSON.parse(stored) as Job
  } catch {
    return undefined
  }
}

/** `+254712345678` → `+2547******78`: enough to tell numbers apart in a log, not to dial one. */
export const maskPhone = (phone: string): string =>
  phone.length <= 7 ? '***' : `${phone.slice(0, 5)}${'*'.repeat(phone.length - 7)}${phone.slice(-2)}`

/**
 * SMS queued in the shared state (Redis, or in-process): a schedule of job ids by due time and one
 * sealed record per job, so any replica drains it and a hop only writes two keys. Delivery is at least
 * once: a job is leased while it is sent, retried with doubling waits, given up after `maxAttempts`; its
 * id (the idempotency id) is remembered for a day after, so enqueuing it again sends nothing.
 */
export function createSmsQueue (options: SmsQueueOptions) {
  const { state, keyring, sender, log } = options
  const pollMs = Math.min(1000, Math.max(50, Math.floor(options.retryBaseMs / 2)))
  const abort = new AbortController()
  let running: Promise<void> | undefined
  let again = false
  let failing = false
  let timer: NodeJS.Timeout | undefined

  const backoff = (attempts: number) => {
    const wait = Math.min(MAX_BACKOFF_MS, options.retryBaseMs * 2 ** (attempts - 1))
    return Math.round(wait * (0.8 + Math.random() * 0.4))
  }

  const settle = (content: Content, kind: SmsKind, status: SmsStatus) => {
    options.onSettled?.({ at: new Date().toISOString(), to: content.to, kind, text: content.text, status })
  }

  async function finish (id: string, job: Job, content: Content, outcome: SendOutcome): Promise<void> {
    const attempts = job.attempts + 1
    if (outcome.ok) {
      await state.set(JOB + id, JSON.stringify({ attempts, kind: job.kind, done: 'sent' }), { ttlMs: DONE_TTL_MS })
      await state.unschedule(QUEUE, id)
      log.info({ smsId: id, kind: job.kind, attempts, messageId: outcome.messageId }, 'sms sent')
      settle(content, job.kind, 'sent')
      return
    }
    const context = { smsId: id, kind: job.kind, attempts, to: maskPhone(content.to), reason: outcome.reason }
    if (outcome.retry && attempts < options.maxAttempts) {
      await state.set(JOB + id, JSON.stringify({ ...job, attempts }), { ttlMs: JOB_TTL_MS })
      await state.schedule(QUEUE, id, Date.now() + backoff(attempts))
      log.warn(context, 'sms send failed, will retry')
      return
    }
    await state.set(JOB + id, JSON.stringify({ attempts, kind: job.kind, done: 'failed' }), { ttlMs: DONE_TTL_MS })
    await state.unschedule(QUEUE, id)
    log.error(context, 'sms given up')
    settle(content, job.kind, 'failed')
  }

  async function sendOne (id: string, send: SmsSender): Promise<void> {
    const job = parseJob(await state.get(JOB + id))
    if (job?.sealed === undefined) {
      // Sent or given up already (a stale schedule entry), or expired: nothing to send.
      await state.unschedule(QUEUE, id)
      return
    }
    const opened = openRecord(keyring, 'sms', job.sealed)
    if (opened === undefined) {
      log.error({ smsId: id, kind: job.kind }, 'sms record unreadable with the configured keys, dropped')
      await Promise.all([state.del(JOB + id), state.unschedule(QUEUE, id)])
      return
    }
    const content = JSON.parse(opened.plaintext) as Content
    const outcome = await send({ id, ...content }, abort.signal)
    // Cut short by close(): not an attempt; due again at once, for another replica or the next start.
    if (abort.signal.aborted) await state.schedule(QUEUE, id, Date.now())
    else await finish(id, job, content, outcome)
  }

  async function drainOnce (send: SmsSender): Promise<boolean> {
    const now = Date.now()
    const due = await state.due(QUEUE, now, BATCH)
    for (const { member } of due) {
      if (abort.signal.aborted) return false
      // Another replica may hold it: only the claimant sends.
      if (await state.claimDue(QUEUE, member, now, now + LEASE_MS)) await sendOne(member, send)
    }
    return due.length === BATCH
  }

  /** Sends what is due; one run at a time per process, and a run asked for meanwhile follows it. */
  function drain (): Promise<void> {
    if (sender === undefined || abort.signal.aborted) return Promise.resolve()
    if (running !== undefined) {
      again = true
      return running
    }
    running = (async () => {
      try {
        do {
          again = false
          while (await drainOnce(sender)) again = false
        } while (again && !abort.signal.aborted)
        if (failing) log.info('sms queue reachable again')
        failing = false
      } catch (error) {
        // The store is down: logged once until it is back; the schedule keeps every job.
        if (!failing) log.error({ err: error }, 'sms queue could not be drained')
        failing = true
      } finally {
        running = undefined
      }
    })()
    return running
  }

  return {
    /** True when SMS is on: messages are queued and sent. */
    enabled: sender !== undefined,

    /**
     * Queues an SMS and returns at once (sending happens in the background). `id` makes it idempotent:
     * the same id again is `duplicate` for a day. `off` when SMS is off (nothing is sent).
     */
    async enqueue (to: string, text: string, kind: SmsKind, opts: { id?: string } = {}) {
      if (sender === undefined) {
        settle({ to, text }, kind, 'off')
        return 'off' as const
      }
      const id = opts.id ?? randomUUID()
      const sealed = sealRecord(keyring.current, 'sms', JSON.stringify({ to, text } satisfies Content))
      const job: Job = { attempts: 0, kind, sealed }
      if (!(await state.set(JOB + id, JSON.stringify(job), { ifAbsent: true, ttlMs: JOB_TTL_MS }))) {
        return 'duplicate' as const
      }
      try {
        await state.schedule(QUEUE, id, Date.now())
      } catch (error) {
        // Unscheduled, the job would block its id without ever being sent.
        await state.del(JOB + id).catch(() => false)
        throw error
      }
      setImmediate(() => { drain().catch(() => {}) })
      return 'queued' as const
    },

    /** Drains the queue now and then every poll interval, until `close`. */
    start (): void {
      if (sender === undefined || timer !== undefined) return
      timer = setInterval(() => { drain().catch(() => {}) }, pollMs)
      timer.unref()
    },

    /** Stops draining; a send under way is aborted and falls due again after its lease. */
    async close (): Promise<void> {
      clearInterval(timer)
      abort.abort()
      await running
    }
  }
}

export type SmsQueue = ReturnType<typeof createSmsQueue>
