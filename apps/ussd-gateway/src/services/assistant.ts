import { randomUUID } from 'node:crypto'
import type { SharedState } from '@impact/shared-state'
import { mintDelegation, mintInvocation } from '@impact/ucan/mint'
import type { AccountSigner } from './account-keys.ts'

/**
 * What became of a question: answered, still being prepared (the hop showed the holding screen), refused by the
 * oracle, or lost (the replica sending it stopped, or the answer outlived the session).
 */
export type Outcome =
  | { kind: 'answered', answer: string }
  | { kind: 'pending' }
  | { kind: 'failed', reason: FailureReason }
  | { kind: 'lost' }

/**
 * `unavailable`: unreachable, timed out or 5xx; `noSession`: the oracle no longer holds the session;
 * `busy`: a turn of the session is still running; `refused`: any other refusal (credits, auth).
 */
export type FailureReason = 'unavailable' | 'noSession' | 'busy' | 'refused'

export interface AssistantOptions {
  /** ORACLE_URL; without it the assistant is off. */
  url?: string | undefined
  state: SharedState
  /** How long a hop waits for an answer before the holding screen (well within the hop deadline). */
  waitMs: number
  /** Deadline of the other oracle calls (its DID, a new session), made within a hop. */
  timeoutMs: number
  /** How long a question may take in the background, and its answer is kept for the next hop. */
  answerTtlMs: number
  /** Reports failures (never a token or the question). */
  report: (fields: Record<string, unknown>, message: string) => void
}

const PENDING = 'pending'
const KEY = 'ask:'
const DID_TTL_MS = 60_000
/** Life of the read-only delegation stored with each new oracle session: a USSD conversation's worth. */
const DELEGATION_SECONDS = 3600

class OracleCallError extends Error {
  readonly reason: FailureReason
  readonly status: number
  constructor (reason: FailureReason, status: number) {
    super(`oracle answered ${status}`)
    this.reason = reason
    this.status = status
  }
}

const reasonOf = (status: number): FailureReason => {
  if (status >= 500) return 'unavailable'
  if (status === 404) return 'noSession'
  if (status === 409) return 'busy'
  return 'refused'
}

/**
 * The oracle as seen by an account (platform notes, flow 4): every call carries an invocation signed by the
 * account's key, addressed to the oracle's DID (from its `GET /`), capability `*` on `ixo:oracle`. A question is
 * sent once; the hop waits `waitMs` for the answer and otherwise leaves it running: the answer (or the failure)
 * lands in the shared state under the question's id, where the next hop of the session, on any replica, finds it.
 */
export function createAssistant (options: AssistantOptions) {
  const { url, state } = options
  const inFlight = new Set<AbortController>()
  let did: { value: Promise<string>, until: number } | undefined

  async function oracleDid (): Promise<string> {
    if (url === undefined) throw new OracleCallError('unavailable', 0)
    if (did !== undefined && did.until > Date.now()) return await did.value
    const value = fetch(new URL('/', url), { signal: AbortSignal.timeout(options.timeoutMs) })
      .then(async (res) => {
        const body = await res.json() as { oracleDid?: unknown }
        if (!res.ok || typeof body.oracleDid !== 'string') throw new OracleCallError('unavailable', res.status)
        return body.oracleDid
      })
    did = { value, until: Date.now() + DID_TTL_MS }
    value.catch(() => { if (did?.value === value) did = undefined })
    return await value
  }

  /** One authenticated call; the JSON answer, or an OracleCallError (unreachable counts as unavailable). */
  async function call (signer: AccountSigner, path: string, body: unknown, signal: AbortSignal): Promise<unknown> {
    let res: Response
    try {
      const invocation = await mintInvocation({ issuer: signer, audience: await oracleDid(), lifetimeSeconds: 300 })
      res = await fetch(new URL(path, url), {
        method: 'POST',
        headers: {
          authorization: `Bearer ${invocation}`,
          'x-auth-type': 'ucan',
          'content-type': 'application/json'
        },
        body: body === undefined ? '' : JSON.stringify(body),
        signal
      })
    } catch (error) {
      if (error instanceof OracleCallError) throw error
      throw new OracleCallError('unavailable', 0)
    }
    const answer = await res.json().catch(() => undefined)
    if (!res.ok) throw new OracleCallError(reasonOf(res.status), res.status)
    return answer
  }

  const failed = (error: unknown, context: string): Outcome => {
    const reason = error instanceof OracleCallError ? error.reason : 'unavailable'
    const status = error instanceof OracleCallError ? error.status : undefined
    options.report({ status, reason }, `assistant ${context} failed`)
    return { kind: 'failed', reason }
  }

  /** Stores the account's read-only delegation to the oracle; a failure is reported, never thrown. */
  async function authorise (signer: AccountSigner, signal: AbortSignal): Promise<void> {
    try {
      const raw = await mintDelegation({
        issuer: signer,
        audience: await oracleDid(),
        capabilities: [{ can: 'domain/read', with: signer.did() }],
        lifetimeSeconds: DELEGATION_SECONDS
      })
      await call(signer, '/delegation', { raw }, signal)
    } catch (error) {
      const status = error instanceof OracleCallError ? error.status : undefined
      options.report({ status }, 'assistant delegation not stored')
    }
  }

  /** Sends the question and records its outcome under its id when it comes; never rejects. */
  async function run (signer: AccountSigner, sessionId: string, question: string, id: string): Promise<Outcome> {
    const controller = new AbortController()
    inFlight.add(controller)
    const timer = setTimeout(() => { controller.abort() }, options.answerTtlMs)
    let outcome: Outcome
    try {
      const body = await call(signer, `/messages/${encodeURIComponent(sessionId)}`, { message: question },
        controller.signal) as { message?: { content?: unknown } } | undefined
      const content = body?.message?.content
      outcome = typeof content === 'string' ? { kind: 'answered', answer: content } : failed(undefined, 'answer')
    } catch (error) {
      outcome = failed(error, 'question')
    } finally {
      clearTimeout(timer)
      inFlight.delete(controller)
    }
    await state.set(KEY + id, JSON.stringify(outcome), { ttlMs: options.answerTtlMs }).catch(() => {})
    return outcome
  }

  return {
    /** Whether ORACLE_URL is set (the menu is hidden otherwise). */
    configured: url !== undefined,

    /**
     * A new oracle session of the account (one per USSD session); its id, or the failure. Beside it, the account
     * lets the oracle read the registry as it (`domain/read` on its DID, stored with `POST /delegation`), so the
     * oracle's platform tools can answer about its devices; a refusal there only leaves the tools without it.
     */
    async openSession (signer: AccountSigner): Promise<{ sessionId: string } | Extract<Outcome, { kind: 'failed' }>> {
      const signal = AbortSignal.timeout(options.timeoutMs)
      try {
        const [body] = await Promise.all([
          call(signer, '/sessions', undefined, signal) as Promise<{ sessionId?: unknown } | undefined>,
          authorise(signer, signal)
        ])
        if (typeof body?.sessionId === 'string') return { sessionId: body.sessionId }
        return { kind: 'failed', reason: 'unavailable' }
      } catch (error) {
        return failed(error, 'session') as Extract<Outcome, { kind: 'failed' }>
      }
    },

    /**
     * Asks `question` in the oracle session: the outcome if it comes within `waitMs`, else `pending` with the id
     * to check later. The question keeps running after the hop either way.
     */
    async ask (signer: AccountSigner, sessionId: string, question: string): Promise<{ id: string, outcome: Outcome }> {
      const id = randomUUID()
      await state.set(KEY + id, PENDING, { ttlMs: options.answerTtlMs })
      const outcome = run(signer, sessionId, question, id)
      let timer: NodeJS.Timeout | undefined
      const waited = new Promise<Outcome>((resolve) => {
        timer = setTimeout(() => { resolve({ kind: 'pending' }) }, options.waitMs)
      })
      try {
        return { id, outcome: await Promise.race([outcome, waited]) }
      } finally {
        clearTimeout(timer)
      }
    },

    /** The outcome of a question asked earlier in the session (pending while it runs). */
    async check (id: string): Promise<Outcome> {
      const stored = await state.get(KEY + id)
      if (stored === null) return { kind: 'lost' }
      if (stored === PENDING) return { kind: 'pending' }
      return JSON.parse(stored) as Outcome
    },

    /** Forgets a question whose outcome was shown. */
    async forget (id: string): Promise<void> {
      await state.del(KEY + id)
    },

    /** Stops the questions still running (the app is closing). */
    close (): void {
      for (const controller of inFlight) controller.abort()
    }
  }
}

export type Assistant = ReturnType<typeof createAssistant>
