import { UssdHopDeadlineError, UssdPhoneMismatchError } from '../errors.ts'
import type { Preferences } from './preferences.ts'
import { applyInput, atPrompt, atSecretPrompt, endScreen, INITIAL_STATE, render, waitsOnIo, type Reply } from './menu/machine.ts'
import type { MachineDeps } from './menu/types.ts'
import { baseCodeOf, earlierText, keepText, maskText, newInput, sameText, shortcutInputs } from './cumulative-text.ts'
import { createSession, ownString, type Session } from './session.ts'
import { after, pending, ready, type Maybe } from './maybe.ts'
import type { EndedSession, LockToken, SessionStore } from './session-store.ts'

/** One request of an aggregator, normalised. Exactly one of `text` and `latest` is set. */
export interface Hop {
  sessionId: string
  /** E.164 with `+`. */
  phoneNumber: string
  serviceCode: string
  networkCode?: string | undefined
  /** Cumulative input (Africa's Talking and clones). */
  text?: string
  /** Latest-input aggregators (Hubtel): the new input, the request's sequence, and whether it opens the session. */
  latest?: { input: string, sequence: number, initiation: boolean, shortcut: string[] }
}

export interface EngineOptions {
  sessions: SessionStore
  preferences: Preferences
  machine: MachineDeps
  /** Base service codes whose extra segments are shortcut inputs. */
  serviceCodes: readonly string[]
  /** Longest a hop waiting on I/O is awaited (then UssdHopDeadlineError). */
  deadlineMs: number
  /**
   * Hears how a hop that missed its deadline ended, after the aggregator got the unavailable END:
   * `applied` (its input took effect), `skipped` (it got its session's lock only after the
   * deadline and did nothing) or the error it failed with. For the operator's log.
   */
  onLateHop?: (sessionId: string, outcome: 'applied' | 'skipped' | Error) => void
}

/** Settles like `reply`, or rejects at the deadline, calling `missed` then (the race handles a late failure). */
function withDeadline (reply: Promise<Reply>, ms: number, missed: () => void): Promise<Reply> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      missed()
      reject(new UssdHopDeadlineError(ms))
    }, ms)
  })
  return Promise.race([reply, deadline]).finally(() => { clearTimeout(timer) })
}

function matchesEnded (ended: EndedSession, hop: Hop): boolean {
  if (ended.phone !== hop.phoneNumber) return false
  // The aggregator said the session is over, so its id may open a new one: a first hop is a new dial.
  if (ended.freed === true && (hop.latest !== undefined ? hop.latest.initiation : hop.text === '')) return false
  if (hop.latest !== undefined) return ended.sequence !== undefined && hop.latest.sequence <= ended.sequence
  // The last hop again, or one before it arriving late: either way the session is over.
  return hop.text !== undefined && (sameText(ended.keptText, hop.text) || earlierText(ended.keptText, hop.text))
}

/**
 * Runs one hop: finds what is new in the request, applies it to the session's state machine,
 * persists the session (or frees it on END) and answers the screen. Retries replay the stored reply.
 */
export function createUssdEngine (options: EngineOptions) {
  const { sessions, preferences, machine } = options

  async function start (hop: Hop): Promise<{ session: Session, inputs: string[] }> {
    const text = hop.text ?? ''
    const session = createSession({
      id: ownString(hop.sessionId),
      phone: hop.phoneNumber,
      // Segments dialled beyond the base code are inputs (maybe a PIN typed ahead): not kept.
      serviceCode: baseCodeOf(hop.serviceCode, options.serviceCodes) ?? hop.serviceCode,
      networkCode: hop.networkCode,
      state: INITIAL_STATE,
      language: await preferences.language(hop.phoneNumber),
      keptText: text,
      sequence: hop.latest?.sequence,
      message: '',
      startedAt: Date.now()
    })
    const inputs = hop.latest !== undefined ? hop.latest.shortcut : shortcutInputs(hop.serviceCode, options.serviceCodes, text)
    return { session, inputs }
  }

  /** Stores the session, or frees it on END; answers the reply. */
  function persist (session: Session, reply: Reply): Maybe<Reply> {
    let stored: Maybe<void>
    if (reply.end) {
      stored = sessions.finish(session, { phone: session.phone, keptText: session.keptText, sequence: session.sequence, message: reply.message })
    } else {
      session.message = reply.message
      stored = sessions.save(session)
    }
    return ready(stored) ? reply : stored.then(() => reply)
  }

  /** One input on a live session, then persisted. */
  function step (session: Session, value: string): Maybe<Reply> {
    const applied = applyInput(session, value, machine)
    return ready(applied) ? persist(session, applied) : applied.then((reply) => persist(session, reply))
  }

  /** A hop of a live session: a retry replays the last screen, anything new is applied. */
  function resume (session: Session, hop: Hop): Maybe<Reply> {
    if (hop.latest !== undefined) {
      if (hop.latest.initiation || hop.latest.sequence <= (session.sequence ?? -1)) return { end: false, message: session.message }
      session.sequence = hop.latest.sequence
      return step(session, hop.latest.input)
    }
    const text = hop.text ?? ''
    const next = newInput(session.keptText, text)
    if (next === undefined) return { end: false, message: session.message }
    session.keptText = keepText(session.keptText, next, text, atSecretPrompt(session))
    return step(session, next.value)
  }

  /**
   * A hop of a live session, undone if it fails (see SessionStore.restore). Only a state whose
   * guard waits on I/O can fail (StateDef's `io`), so only its hops take a snapshot (on a menu
   * hop, the copy was the one object copied whole). A hop that fails elsewhere (a defect) frees its
   * session rather than leave it half changed: the user was told to try again.
   */
  function continueSession (session: Session, hop: Hop): Maybe<Reply> {
    if (session.phone !== hop.phoneNumber) throw new UssdPhoneMismatchError()
    const { restore } = sessions
    if (restore === undefined) return resume(session, hop)
    const snapshot = waitsOnIo(session) ? { ...session } : undefined
    const undo = (error: unknown): never => {
      restore(snapshot ?? session.id)
      throw error
    }
    try {
      const reply = resume(session, hop)
      return ready(reply) ? reply : reply.catch(undo)
    } catch (error) {
      return undo(error)
    }
  }

  /**
   * A hop that continues a session we no longer hold: the user must dial again. Latest-input
   * aggregators say so themselves (not an initiation). With cumulative text, a first hop may carry
   * text (a shortcut dial), so only a text that extends the one of a session that ended or was
   * freed lately (`ended`), or any text of a session that expired lately (the store's trace), counts.
   */
  function isExpired (hop: Hop, ended: EndedSession | undefined): Maybe<boolean> {
    if (hop.latest !== undefined) return !hop.latest.initiation
    if (hop.text === undefined || hop.text === '') return false
    if (ended !== undefined && ended.phone === hop.phoneNumber && newInput(ended.keptText, hop.text)?.extends === true) return true
    return sessions.expired(hop.sessionId)
  }

  /** The first hop of a session (or one after it ended): a retry of the last hop replays its END. */
  async function startSession (hop: Hop): Promise<Reply> {
    const ended = await sessions.ended(hop.sessionId)
    if (ended !== undefined && matchesEnded(ended, hop)) return { end: true, message: ended.message }
    const [{ session, inputs }, expired] = await Promise.all([start(hop), isExpired(hop, ended)])
    if (expired) return endScreen(session, 'session.expired', machine.appName)
    // A shortcut's inputs are replayed like typed ones, up to the first refusal or free-input prompt.
    // Rendered only when no input moved the machine: applyInput answers its own screen.
    let reply: Reply | undefined
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
    return await persist(session, reply ?? render(session, machine.appName))
  }

  /** The hop's reply within the deadline; past it, the unavailable error now and the real outcome to onLateHop. */
  function bounded (sessionId: string, reply: Promise<Reply>, late = { missed: false }): Promise<Reply> {
    return withDeadline(reply, options.deadlineMs, () => {
      late.missed = true
      const report = options.onLateHop
      if (report === undefined) return
      reply.then(() => { report(sessionId, 'applied') }, (error: unknown) => {
        report(sessionId, error instanceof UssdHopDeadlineError ? 'skipped' : error instanceof Error ? error : new Error(String(error)))
      })
    })
  }

  /** Releases the hop's lock once its reply settles, however it ends. */
  function releaseAfter (sessionId: string, token: LockToken, reply: Promise<Reply>): Promise<Reply> {
    const unlock = () => sessions.unlock(sessionId, token)
    return reply.then((value) => after(unlock(), () => value), (error: unknown) => after(unlock(), () => { throw error }))
  }

  /** Runs the hop holding its lock, and releases the lock however it ends (at once when nothing waits on I/O). */
  function locked (hop: Hop, token: LockToken): Maybe<Reply> {
    let reply: Maybe<Reply>
    try {
      reply = run(hop)
    } catch (error) {
      return after(sessions.unlock(hop.sessionId, token), () => { throw error })
    }
    if (pending(reply)) return releaseAfter(hop.sessionId, token, reply)
    const done = reply
    return after(sessions.unlock(hop.sessionId, token), () => done)
  }

  /**
   * A hop of a session that no hop holds, in-process (see SessionStore.idle): it runs without the
   * lock, and takes it only when it goes on to wait on I/O. That lock is granted at once, since no
   * other code ran since the check.
   */
  function unlocked (hop: Hop): Maybe<Reply> {
    const reply = run(hop)
    if (!pending(reply)) return reply
    const token = sessions.lock(hop.sessionId)
    return bounded(hop.sessionId, pending(token) ? token.then((held) => releaseAfter(hop.sessionId, held, reply)) : releaseAfter(hop.sessionId, token, reply))
  }

  function run (hop: Hop): Maybe<Reply> {
    const live = sessions.touch(hop.sessionId)
    if (!ready(live)) return live.then((session) => (session === undefined ? startSession(hop) : continueSession(session, hop)))
    return live === undefined ? startSession(hop) : continueSession(live, hop)
  }

  return {
    /**
     * Serialised per session (see the session store's lock); no promise when nothing waits on I/O,
     * and a hop that waits gets the deadline.
     */
    hop (hop: Hop): Maybe<Reply> {
      if (sessions.idle?.(hop.sessionId) === true) return unlocked(hop)
      const locking = sessions.lock(hop.sessionId)
      if (!pending(locking)) {
        const reply = locked(hop, locking)
        return pending(reply) ? bounded(hop.sessionId, reply) : reply
      }
      // A hop still waiting for its session at the deadline must not run later: the user was told
      // it failed. One already running goes on (a database write cannot be taken back).
      const late = { missed: false }
      const reply = locking.then((token) => late.missed
        ? after(sessions.unlock(hop.sessionId, token), () => { throw new UssdHopDeadlineError(options.deadlineMs) })
        : locked(hop, token))
      return bounded(hop.sessionId, reply, late)
    },

    /**
     * Frees a session early (end-of-session notification) when it belongs to `phoneNumber`. It
     * waits for a hop still running on the session: that hop would store the session again after
     * it was freed.
     */
    async end (sessionId: string, phoneNumber: string): Promise<boolean> {
      const token = await sessions.lock(sessionId)
      try {
        const live = await sessions.peek(sessionId)
        if (live === undefined) return await sessions.remove(sessionId)
        if (live.phone !== phoneNumber) return false
        // Ended like an END: a later hop that continues it is told to dial again (see isExpired).
        await sessions.finish(live, { phone: live.phone, keptText: live.keptText, sequence: live.sequence, message: endScreen(live, 'session.expired', machine.appName).message, freed: true })
        return true
      } finally {
        await sessions.unlock(sessionId, token)
      }
    }
  }
}

export type UssdEngine = ReturnType<typeof createUssdEngine>
