import { randomUUID } from 'node:crypto'
import type { SharedState } from '@impact/shared-state'
import { mintDelegation, mintInvocation } from '@impact/ucan/mint'
import type { AccountSigner } from './account-keys.ts'

/** `lost`: the replica sending it stopped, or the answer outlived the session. */
export type Outcome =
  | { kind: 'answered', answer: string }
  | { kind: 'pending' }
  | { kind: 'failed', reason: FailureReason }
  | { kind: 'lost' }

/** `refused` covers any other refusal (credits, auth). */
export type FailureReason = 'unavailable' | 'noSession' | 'busy' | 'refused'

export interface AssistantOptions {
  url?: string | undefined
  state: SharedState
  /** Before the holding screen; well within the hop deadline. */
  waitMs: number
  timeoutMs: number
  /** Also how long the answer is kept for the next hop. */
  answerTtlMs: number
  /** Never given a token or the question. */
  report: (fields: Record<string, unknown>, message: string) => void
}

const PENDING = 'pending'
const KEY = 'ask:'
const DID_TTL_MS = 60_000
/** A USSD conversation's worth. */
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

// A question is sent once; unanswered within `waitMs` it keeps running and its outcome lands in the shared
// state, where the session's next hop finds it on any replica.
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

  /** A failure is reported, never thrown. */
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
    configured: url !== undefined,

    /** The oracle may also read the registry as the account; a refusal there only leaves its tools without it. */
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

    /** `pending` when no outcome within `waitMs`; the question keeps running either way. */
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

    async check (id: string): Promise<Outcome> {
      const stored = await state.get(KEY + id)
      if (stored === null) return { kind: 'lost' }
      if (stored === PENDING) return { kind: 'pending' }
      return JSON.parse(stored) as Outcome
    },

    async forget (id: string): Promise<void> {
      await state.del(KEY + id)
    },

    close (): void {
      for (const controller of inFlight) controller.abort()
    }
  }
}

export type Assistant = ReturnType<typeof createAssistant>
