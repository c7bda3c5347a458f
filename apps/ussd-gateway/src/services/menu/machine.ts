import { UssdPinBusyError } from '../../errors.ts'
import type { Language } from '../../db/types.ts'
import type { Programme } from '../programmes.ts'
import { paginate } from '../screen.ts'
import type { Session, StateName } from '../session.ts'
import { agentStates } from './agent-states.ts'
import { assistantStates } from './assistant-states.ts'
import { createStates } from './create-states.ts'
import { domainStates } from './domain-states.ts'
import { forgotStates } from './forgot-states.ts'
import { translator } from './i18n.ts'
import { loginStates } from './login-states.ts'
import { mainStates } from './main-states.ts'
import { servicesStates } from './services-states.ts'
import type { MachineDeps, StateDef, Step } from './types.ts'

export const INITIAL_STATE: StateName = 'preMenu'

export const STATES: Record<StateName, StateDef> = {
  ...mainStates,
  ...loginStates,
  ...forgotStates,
  ...createStates,
  ...servicesStates,
  ...domainStates,
  ...assistantStates,
  ...agentStates
}

const isBackKey = (key: string): boolean => key === '0' || key === 'back'
const isExitKey = (key: string): boolean => key === '*' || key === 'exit' || key === 'cancel'
const NEXT_PAGE_KEY = '98'

export interface Reply {
  /** True for END: the session is over. */
  end: boolean
  /** The body after `CON `/`END `. */
  message: string
}

const stateOf = (session: Session): StateDef => STATES[session.state] ?? STATES[INITIAL_STATE]

/** Pages of the views by programme, state and language, built once; a reloaded programme is a new object. */
const viewPages = new WeakMap<Programme, Map<StateDef, Partial<Record<Language, string[]>>>>()

function pagesOfView (def: Extract<StateDef, { view: unknown }>, language: Language, programme: Programme): string[] {
  let byState = viewPages.get(programme)
  if (byState === undefined) viewPages.set(programme, byState = new Map())
  let byLanguage = byState.get(def)
  if (byLanguage === undefined) byState.set(def, byLanguage = {})
  const known = byLanguage[language]
  if (known !== undefined) return known
  const t = translator(language)
  const pages = paginate(def.view(t, programme), t('nav.more'))
  byLanguage[language] = pages
  return pages
}

/** What the aggregator is sent for a reply: `CON <body>` or `END <body>`. */
export const wireText = (reply: Reply): string => `${reply.end ? 'END' : 'CON'} ${reply.message}`

/** Every page of the current screen, with a pending message above the first one. Callers must not change the array. */
export function pagesOf (session: Session, programme: Programme): string[] {
  const def = stateOf(session)
  const { flash, language } = session
  if (def.view !== undefined && flash === undefined) return pagesOfView(def, language, programme)
  const t = translator(language)
  const screen = def.view !== undefined ? def.view(t, programme) : def.screen(session, t, programme)
  const flashed = flash === undefined ? screen : { ...screen, lines: [t(flash.key, flash.params), ...screen.lines] }
  return paginate(flashed, t('nav.more'))
}

/** The current page of the current screen: what the user sees now. */
export function render (session: Session, programme: Programme): Reply {
  const pages = pagesOf(session, programme)
  const page = Math.min(Math.max(session.page, 0), pages.length - 1)
  return { end: false, message: pages[page] ?? '' }
}

function enter (session: Session, to: StateName, flash: Session['flash']): void {
  session.state = to
  session.page = 0
  session.flash = flash
  // Back at the main menu, what a platform menu fetched is done with (a question being answered is kept).
  if (to === INITIAL_STATE) session.domains = session.domain = session.stove = session.answer = undefined
}

function endReply (session: Session, step: { end: NonNullable<Session['flash']> }, programme: Programme): Reply {
  const t = translator(session.language)
  const text = t(step.end.key, { app: programme.name, ...step.end.params })
  return { end: true, message: paginate({ lines: [text], footer: [], end: true }, t('nav.more'))[0] ?? text }
}

/**
 * Applies one input to the session (mutating it) and answers the screen. Navigation keys (`0`/back, `*`/exit,
 * `98`) are handled here for every state; anything else goes to the state's guard.
 */
export async function applyInput (session: Session, raw: string, deps: MachineDeps): Promise<Applied> {
  const value = raw.trim()
  const key = value.toLowerCase()
  // A record from an older release may name a state that no longer exists: start over at the root.
  if (!(session.state in STATES)) enter(session, INITIAL_STATE, undefined)
  const def = stateOf(session)
  const programme = deps.programmes.of(session.serviceCode)
  if (key === NEXT_PAGE_KEY && session.page < pagesOf(session, programme).length - 1) {
    session.page += 1
    return shown(render(session, programme), false)
  } else if (isBackKey(key)) {
    if (session.page > 0) {
      session.page -= 1
      // Back on the first page, a message shown above it (a refusal) is not repeated.
      if (session.page === 0) session.flash = undefined
      return shown(render(session, programme), false)
    }
    const back: Step = def.parent === undefined
      ? { to: session.state, flash: { key: 'error.invalidChoice' } }
      : { to: def.parent(session) }
    return take(session, back, deps)
  } else if (isExitKey(key)) {
    const exit: Step = session.state === INITIAL_STATE ? { end: { key: 'main.goodbye' } } : { to: INITIAL_STATE }
    return take(session, exit, deps)
  }
  let step: Step
  try {
    step = await def.input(value, session, deps)
  } catch (error) {
    // PIN work refused because the PIN queue is full ends the session with the busy text.
    if (!(error instanceof UssdPinBusyError)) throw error
    step = { end: { key: 'pin.busy' } }
  }
  return take(session, step, deps)
}

export type Applied = Reply & { refused: boolean }

const shown = (reply: Reply, refused: boolean): Applied => ({ ...reply, refused })

/** Moves the session as the step says and answers the screen (or the END text). */
function take (session: Session, step: Step, deps: MachineDeps): Applied {
  const programme = deps.programmes.of(session.serviceCode)
  if ('end' in step) return shown(endReply(session, step, programme), false)
  enter(session, step.to, step.flash)
  return shown(render(session, programme), isRefusal(step))
}

// Confirmation messages (`Login successful.`, `Language set…`) are not refusals; error texts are.
const NOT_REFUSALS = new Set(['login.success', 'language.saved', 'services.loggedOut', 'pin.changed', 'pin.mustChange'])
const isRefusal = (step: { flash?: Session['flash'] }) => step.flash !== undefined && !NOT_REFUSALS.has(step.flash.key)

/** True when the current screen asks for free input (shortcut replays stop there). */
export const atPrompt = (session: Session): boolean => stateOf(session).prompt !== undefined

/** True when the current screen asks for a PIN (the input is masked in the kept text). */
export const atSecretPrompt = (session: Session): boolean => stateOf(session).prompt === 'secret'

/** END screen for a fixed message (e.g. an expired session), in the session's language. */
export const endScreen = (session: Session, key: NonNullable<Session['flash']>['key'], programme: Programme): Reply =>
  endReply(session, { end: { key } }, programme)
