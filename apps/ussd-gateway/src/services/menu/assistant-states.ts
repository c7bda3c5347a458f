import { MAX_TEXT } from '../../schemas/ussd.ts'
import type { Outcome } from '../assistant.ts'
import { plainGsm7, shorten } from '../screen.ts'
import type { Session } from '../session.ts'
import { actingAccount } from './account-access.ts'
import { end, go, refuse, type MachineDeps, type StateDef, type Step } from './types.ts'

/** A question is at most this long, and needs some room to be worth asking. */
export const MAX_QUESTION = 160
const MIN_ROOM = 10
/** An answer is cut here (about eight pages): a feature phone is no place for an essay. */
export const MAX_ANSWER = 1200

/**
 * What may still be typed: the aggregator's cumulative `text` holds the whole session and is capped at 182
 * characters, so a question gets what is left after its `*` (latest-input aggregators keep no such text).
 */
export function questionRoom (s: Session): number {
  if (s.sequence !== undefined) return MAX_QUESTION
  return Math.max(0, Math.min(MAX_QUESTION, MAX_TEXT - s.keptText.length - 1))
}

/** Opens Ask the assistant: a question still being answered first, else the prompt when there is room. */
export function openAssistant (s: Session): Step {
  if (s.questionId !== undefined) return go('askWaiting')
  return questionRoom(s) < MIN_ROOM ? end('ask.noRoom') : go('askQuestion')
}

/** Moves on from a question's outcome: its answer, the holding screen, or what went wrong. */
async function settle (s: Session, deps: MachineDeps, id: string, outcome: Outcome): Promise<Step> {
  if (outcome.kind === 'pending') {
    s.questionId = id
    return go('askWaiting')
  }
  s.questionId = undefined
  await deps.assistant.forget(id)
  if (outcome.kind === 'answered') {
    s.answer = shorten(plainGsm7(outcome.answer), MAX_ANSWER)
    return go('askAnswer')
  }
  if (outcome.kind === 'lost') return go('askQuestion', 'ask.lost')
  if (outcome.reason === 'busy') return go('askQuestion', 'ask.busy')
  if (outcome.reason === 'refused') return go('askQuestion', 'ask.refused')
  return end('ask.unavailable')
}

/** Sends a question as the account in the session's oracle session (opened on the first question). */
async function ask (s: Session, deps: MachineDeps, question: string): Promise<Step> {
  const acting = await actingAccount(s, deps)
  if ('stop' in acting) return acting.stop
  const { assistant } = deps
  // The oracle may have dropped the session (deleted, expired): one new session, then the question again.
  for (let attempt = 1; ; attempt++) {
    if (s.oracleSessionId === undefined) {
      const opened = await assistant.openSession(acting.signer)
      if ('kind' in opened) return opened.reason === 'unavailable' ? end('ask.unavailable') : refuse(s, 'ask.refused')
      s.oracleSessionId = opened.sessionId
    }
    const { id, outcome } = await assistant.ask(acting.signer, s.oracleSessionId, question)
    if (outcome.kind !== 'failed' || outcome.reason !== 'noSession' || attempt > 1) {
      return await settle(s, deps, id, outcome)
    }
    await assistant.forget(id)
    s.oracleSessionId = undefined
  }
}

/** Ask the assistant: a question, a holding screen while the oracle works, the answer paged. */
export const assistantStates = {
  askQuestion: {
    prompt: 'text',
    parent: () => 'preMenu',
    screen: (s, t) => ({ lines: [t('ask.enter', { n: questionRoom(s) })], footer: [t('nav.back')] }),
    input: async (value, s, deps) => {
      const question = value.trim()
      if (question.length < 2) return refuse(s, 'ask.tooShort')
      if (question.length > MAX_QUESTION) return refuse(s, 'ask.tooLong', { n: MAX_QUESTION })
      return await ask(s, deps, question)
    }
  },

  askWaiting: {
    parent: () => 'preMenu',
    view: (t) => ({ lines: [t('ask.preparing'), t('ask.check')], footer: [t('nav.back')] }),
    input: async (value, s, deps) => {
      if (value !== '1') return refuse(s, 'error.invalidChoice')
      const id = s.questionId
      if (id === undefined) return openAssistant(s)
      const outcome = await deps.assistant.check(id)
      return outcome.kind === 'pending' ? refuse(s, 'ask.stillPreparing') : await settle(s, deps, id, outcome)
    }
  },

  askAnswer: {
    parent: () => 'preMenu',
    screen: (s, t) => ({
      lines: [s.answer !== undefined && s.answer !== '' ? s.answer : t('ask.empty')],
      footer: [t('ask.followUp'), t('nav.back')]
    }),
    input: (value, s) => {
      if (value !== '1') return refuse(s, 'error.invalidChoice')
      s.answer = undefined
      return openAssistant(s)
    }
  }
} satisfies Record<string, StateDef>
