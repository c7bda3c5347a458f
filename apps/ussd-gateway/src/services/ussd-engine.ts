import { UssdPhoneMismatchError } from '../errors.ts'
import type { Preferences } from './preferences.ts'
import { applyInput, atPrompt, endScreen, INITIAL_STATE, render, type Reply } from './menu/machine.ts'
import type { MachineDeps } from './menu/types.ts'
import type { Session } from './session.ts'
import type { EndedSession, SessionStore } from './session-store.ts'
import { newInput, shortcutInputs, type TextDigest } from './text-digest.ts'

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
  digest: TextDigest
  /** Base service codes whose extra segments are shortcut inputs. */
  serviceCodes: readonly string[]
}

function matchesEnded (ended: EndedSession, hop: Hop, digest: TextDigest): boolean {
  if (ended.phone !== hop.phoneNumber) return false
  if (hop.latest !== undefined) return ended.sequence !== undefined && hop.latest.sequence <= ended.sequence
  return hop.text !== undefined && hop.text.length === ended.textLength && digest(hop.text) === ended.textDigest
}

/**
 * Runs one hop: finds what is new in the request, applies it to the session's state machine,
 * persists the session (or frees it on END) and answers the screen. Retries replay the stored reply.
 */
export function createUssdEngine (options: EngineOptions) {
  const { sessions, preferences, machine, digest } = options

  async function start (hop: Hop): Promise<{ session: Session, inputs: string[] }> {
    const text = hop.text ?? ''
    const session: Session = {
      id: hop.sessionId,
      phone: hop.phoneNumber,
      serviceCode: hop.serviceCode,
      networkCode: hop.networkCode,
      state: INITIAL_STATE,
      page: 0,
      language: await preferences.language(hop.phoneNumber),
      textLength: text.length,
      textDigest: digest(text),
      sequence: hop.latest?.sequence,
      message: '',
      startedAt: Date.now()
    }
    const inputs = hop.latest !== undefined ? hop.latest.shortcut : shortcutInputs(hop.serviceCode, options.serviceCodes, text)
    return { session, inputs }
  }

  async function run (hop: Hop): Promise<Reply> {
    const live = await sessions.touch(hop.sessionId)
    let session: Session
    let inputs: string[]
    if (live !== undefined) {
      if (live.phone !== hop.phoneNumber) throw new UssdPhoneMismatchError()
      session = live
      if (hop.latest !== undefined) {
        if (hop.latest.initiation || hop.latest.sequence <= (session.sequence ?? -1)) return { end: false, message: session.message }
        session.sequence = hop.latest.sequence
        inputs = [hop.latest.input]
      } else {
        const text = hop.text ?? ''
        const next = newInput(session, text, digest)
        if (next.kind === 'replay') return { end: false, message: session.message }
        session.textLength = text.length
        session.textDigest = digest(text)
        inputs = [next.value]
      }
    } else {
      const ended = await sessions.ended(hop.sessionId)
      if (ended !== undefined && matchesEnded(ended, hop, digest)) return { end: true, message: ended.message }
      ;({ session, inputs } = await start(hop))
      if (hop.latest !== undefined && !hop.latest.initiation) {
        return endScreen(session, 'session.expired', machine.appName)
      }
    }

    // A shortcut's inputs are replayed like typed ones, up to the first refusal or free-input prompt.
    const shortcut = live === undefined
    // Rendered only when no input moved the machine: applyInput answers its own screen.
    let reply: Reply | undefined
    for (const value of inputs) {
      if (shortcut && atPrompt(session)) break
      const result = await applyInput(session, value, machine)
      reply = result
      if (result.end || (shortcut && result.refused)) break
    }
    reply ??= render(session, machine.appName)

    if (reply.end) {
      await sessions.finish(session, { phone: session.phone, textLength: session.textLength, textDigest: session.textDigest, sequence: session.sequence, message: reply.message })
    } else {
      session.message = reply.message
      await sessions.save(session)
    }
    return reply
  }

  return {
    /** Serialised per session: see the session store's lock. */
    async hop (hop: Hop): Promise<Reply> {
      const release = await sessions.lock(hop.sessionId)
      try {
        return await run(hop)
      } finally {
        await release()
      }
    },

    /** Frees a session early (end-of-session notification); a phone, when given, must match. */
    async end (sessionId: string, phoneNumber?: string): Promise<boolean> {
      const live = await sessions.peek(sessionId)
      if (live !== undefined && phoneNumber !== undefined && live.phone !== phoneNumber) return false
      return await sessions.remove(sessionId)
    }
  }
}

export type UssdEngine = ReturnType<typeof createUssdEngine>
