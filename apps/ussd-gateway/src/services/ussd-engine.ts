import { UssdHopDeadlineError, UssdPhoneMismatchError } from '../errors.ts'
import type { Preferences } from './preferences.ts'
import { applyInput, atPrompt, atSecretPrompt, endScreen, INITIAL_STATE, render, type Reply } from './menu/machine.ts'
import type { MachineDeps } from './menu/types.ts'
import { baseCodeOf, earlierText, keepText, maskText, newInput, sameText, shortcutInputs } from './cumulative-text.ts'
import { createSession, type Session } from './session.ts'
import type { AggregatorOutcome, EndedSummary, SessionRecorder } from './session-records.ts'
import type { EndedSession, SessionStore } from './session-store.ts'

/** Exactly one of `text` and `latest` is set. */
export interface Hop {
  sessionId: string
  /** E.164 with `+`. */
  phoneNumber: string
  serviceCode: string
  networkCode?: string | undefined
  text?: string
  /** Latest-input aggregators (Hubtel). */
  latest?: { input: string, sequence: number, initiation: boolean, shortcut: string[] }
}

export interface EngineOptions {
  sessions: SessionStore
  preferences: Preferences
  machine: MachineDeps
  /** Programmes may change them at a reload. */
  baseCodes: () => readonly string[]
  deadlineMs: number
  /** `skipped`: locked only after the deadline. */
  onLateHop?: (sessionId: string, outcome: 'applied' | 'skipped' | Error) => void
  /** Not awaited. */
  records?: Pick<SessionRecorder, 'ended' | 'expired' | 'noticed'>
  /** Tests move it with the session store's. */
  now?: () => number
  /** Hears of each session opened (metrics). */
  onSessionStarted?: () => void
}

export interface EndNotice extends AggregatorOutcome {
  reason: 'user' | 'timeout'
}

async function withDeadline (reply: Promise<Reply>, ms: number, missed: () => void): Promise<Reply> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      missed()
      reject(new UssdHopDeadlineError(ms))
    }, ms)
  })
  try {
    return await Promise.race([reply, deadline])
  } finally {
    clearTimeout(timer)
  }
}

function matchesEnded (ended: EndedSession, hop: Hop): boolean {
  if (ended.phone !== hop.phoneNumber) return false
  // The aggregator said the session is over, so its id may open a new one: a first hop is a new dial.
  if (ended.freed === true && (hop.latest !== undefined ? hop.latest.initiation : hop.text === '')) return false
  if (hop.latest !== undefined) return ended.sequence !== undefined && hop.latest.sequence <= ended.sequence
  // The last hop again, or one before it arriving late: either way the session is over.
  return hop.text !== undefined && (sameText(ended.keptText, hop.text) || earlierText(ended.keptText, hop.text))
}

/** Retries replay the stored reply. */
export function createUssdEngine (options: EngineOptions) {
  const { sessions, preferences, machine, records } = options
  const now = options.now ?? Date.now

  const summaryOf = (s: Session, reason: EndedSummary['reason'], outcome: AggregatorOutcome = {}): EndedSummary => ({
    sessionId: s.id,
    serviceCode: s.serviceCode,
    networkCode: s.networkCode,
    hops: s.hops ?? 0,
    state: s.state,
    startedAt: s.startedAt,
    endedAt: now(),
    reason,
    ...outcome
  })

  async function store (session: Session, reply: Reply): Promise<Reply> {
    if (reply.end) {
      const { phone, keptText, sequence } = session
      await sessions.finish(session, { phone, keptText, sequence, message: reply.message })
      records?.ended(summaryOf(session, 'end'))
    } else {
      session.message = reply.message
      await sessions.save(session)
    }
    return reply
  }

  /** Undefined for a retry. */
  function takeInput (session: Session, hop: Hop): string | undefined {
    if (hop.latest !== undefined) {
      if (hop.latest.initiation || hop.latest.sequence <= (session.sequence ?? -1)) return undefined
      session.sequence = hop.latest.sequence
      return hop.latest.input
    }
    const text = hop.text ?? ''
    const next = newInput(session.keptText, text)
    if (next === undefined) return undefined
    session.keptText = keepText(session.keptText, next, text, atSecretPrompt(session))
    return next.value
  }

  async function continueSession (session: Session, hop: Hop): Promise<Reply> {
    if (session.phone !== hop.phoneNumber) throw new UssdPhoneMismatchError()
    session.hops = (session.hops ?? 0) + 1
    const input = takeInput(session, hop)
    const reply = input === undefined
      ? { end: false, message: session.message }
      : await applyInput(session, input, machine)
    return await store(session, reply)
  }

  /** A first hop may carry text (a shortcut dial), so only text on an ended or expired session counts. */
  async function isExpired (hop: Hop, ended: EndedSession | undefined): Promise<boolean> {
    if (hop.latest !== undefined) return !hop.latest.initiation
    if (hop.text === undefined || hop.text === '') return false
    const continuesEnded = ended !== undefined && ended.phone === hop.phoneNumber
    if (continuesEnded && newInput(ended.keptText, hop.text)?.extends === true) return true
    return await sessions.expired(hop.sessionId)
  }

  async function newSession (hop: Hop): Promise<Session> {
    // Segments dialled beyond the base code are inputs (maybe a PIN typed ahead): not kept.
    const serviceCode = baseCodeOf(hop.serviceCode, options.baseCodes()) ?? hop.serviceCode
    const { languages } = machine.programmes.of(serviceCode)
    const first = languages[0] ?? 'en'
    const chosen = await preferences.language(hop.phoneNumber, first)
    return createSession({
      id: hop.sessionId,
      phone: hop.phoneNumber,
      serviceCode,
      networkCode: hop.networkCode,
      state: INITIAL_STATE,
      // A language the programme does not offer gives way to its first.
      language: languages.includes(chosen) ? chosen : first,
      keptText: hop.text ?? '',
      sequence: hop.latest?.sequence,
      message: '',
      startedAt: now(),
      hops: 1
    })
  }

  /** A retry of the last hop replays its END. */
  async function startSession (hop: Hop): Promise<Reply> {
    const ended = await sessions.ended(hop.sessionId)
    if (ended !== undefined && matchesEnded(ended, hop)) return { end: true, message: ended.message }
    const [session, expired] = await Promise.all([newSession(hop), isExpired(hop, ended)])
    const programme = machine.programmes.of(session.serviceCode)
    if (expired) return endScreen(session, 'session.expired', programme)
    // A shortcut's inputs are replayed like typed ones, up to the first refusal or free-input prompt.
    const inputs = hop.latest?.shortcut ?? shortcutInputs(hop.serviceCode, options.baseCodes(), hop.text ?? '')
    let reply: Reply = render(session, programme)
    let replayed = 0
    for (const value of inputs) {
      if (atPrompt(session)) break
      const result = await applyInput(session, value, machine)
      reply = result
      replayed += 1
      if (result.end || result.refused) break
    }
    // Inputs left over were typed ahead of a prompt and may hold a PIN.
    if (replayed < inputs.length) session.keptText = maskText(session.keptText)
    const stored = await store(session, reply)
    options.onSessionStarted?.()
    return stored
  }

  async function run (hop: Hop): Promise<Reply> {
    const session = await sessions.get(hop.sessionId)
    return session === undefined ? await startSession(hop) : await continueSession(session, hop)
  }

  return {
    async hop (hop: Hop): Promise<Reply> {
      let late = false
      const reply = sessions.withLock(hop.sessionId, async () => {
        // The user was already told this hop failed: it must not take effect now.
        if (late) throw new UssdHopDeadlineError(options.deadlineMs)
        return await run(hop)
      })
      return await withDeadline(reply, options.deadlineMs, () => {
        late = true
        const report = options.onLateHop
        if (report === undefined) {
          reply.catch(() => {})
          return
        }
        reply.then(() => { report(hop.sessionId, 'applied') }, (error: unknown) => {
          if (error instanceof UssdHopDeadlineError) report(hop.sessionId, 'skipped')
          else report(hop.sessionId, error instanceof Error ? error : new Error(String(error)))
        })
      })
    },

    /** Under the lock, so no hop stores the session again. */
    async end (sessionId: string, phoneNumber: string, notice: EndNotice = { reason: 'user' }): Promise<boolean> {
      const { reason, ...outcome } = notice
      return await sessions.withLock(sessionId, async () => {
        const live = await sessions.get(sessionId)
        if (live === undefined) {
          // Expired before the notice came (and not recorded yet): recorded now, with the notice's outcome.
          const trace = await sessions.takeExpired(sessionId)
          // A notice naming another phone says nothing of this session, whose timeout is recorded all the same.
          if (trace !== undefined) records?.expired(sessionId, trace, trace.phone === phoneNumber ? outcome : {})
          else records?.noticed(sessionId, outcome)
          await sessions.remove(sessionId)
          return false
        }
        if (live.phone !== phoneNumber) return false
        // Ended like an END: a later hop that continues it is told to dial again (see isExpired).
        const { message } = endScreen(live, 'session.expired', machine.programmes.of(live.serviceCode))
        const { phone, keptText, sequence } = live
        await sessions.finish(live, { phone, keptText, sequence, message, freed: true })
        records?.ended(summaryOf(live, reason, outcome))
        return true
      })
    }
  }
}

export type UssdEngine = ReturnType<typeof createUssdEngine>
