import type { Kysely } from 'kysely'
import type { DB, Language } from '../../db/types.ts'
import type { AccountKeys } from '../account-keys.ts'
import type { Assistant } from '../assistant.ts'
import type { PinVault } from '../pin-vault.ts'
import type { Platform } from '../platform.ts'
import type { Programme, ProgrammeCatalog } from '../programmes.ts'
import type { Screen } from '../screen.ts'
import type { Flash, Session, StateName } from '../session.ts'
import type { SmsService } from '../sms/sms-service.ts'
import type { MessageKey, MessageParams, Translator } from './i18n.ts'

/**
 * What the states may use beyond the session: the database, the PIN vault, account keys, lockouts, branding,
 * and the platform (domain-api, the oracle) to act as the logged-in account.
 */
export interface MachineDeps {
  db: Kysely<DB>
  vault: PinVault
  keys: AccountKeys
  /** Accounts one phone number may sign up (USSD_ACCOUNTS_PER_PHONE). */
  accountsPerPhone: number
  /** Cool-down of a first lockout, and the longest one (each lockout doubles the last). */
  lockout: { baseMs: number, maxMs: number }
  /** The programme of a session's service code: its name, languages and menus. */
  programmes: Pick<ProgrammeCatalog, 'of'>
  saveLanguage: (phoneNumber: string, language: Language) => Promise<void>
  /**
   * SMS: `notify` queues one of the gateway's notices in the background, `enqueue(phone, text, kind, { id })`
   * any text (awaitable, idempotent per id, never rejects); neither waits on a send. `enabled`: SMS is on.
   */
  sms: Pick<SmsService, 'notify' | 'enqueue' | 'enabled'>
  platform: Platform
  assistant: Assistant
}

/** The outcome of an input: move to a state (maybe the same one, with a message), or end the session. */
export type Step = { to: StateName, flash?: Flash | undefined } | { end: Flash }

interface StateBase {
  /** Free input (id, name, PIN): shortcut dials stop here; `secret` input is masked in the kept text. */
  prompt?: 'text' | 'secret'
  /** Where `0` leads from the first page; the root has none. */
  parent?: (session: Session) => StateName
}

/** Handles any input but a navigation key; bad input is refused with a reason, never thrown. */
interface Guard {
  input: (value: string, session: Session, deps: MachineDeps) => Step | Promise<Step>
}

/** A state shows a `view` (the same for every session, so paged once) or a `screen` that reads the session. */
export type StateDef = StateBase & Guard & (
  | { view: (t: Translator, programme: Programme) => Screen, screen?: never }
  | { screen: (session: Session, t: Translator, programme: Programme) => Screen, view?: never }
)

export const go = (to: StateName, key?: MessageKey, params?: MessageParams): Step =>
  ({ to, flash: key === undefined ? undefined : { key, ...(params !== undefined ? { params } : {}) } })

export const end = (key: MessageKey, params?: MessageParams): Step =>
  ({ end: { key, ...(params !== undefined ? { params } : {}) } })

/** Stay on the current screen and say why the input was refused. */
export const refuse = (session: Session, key: MessageKey, params?: MessageParams): Step =>
  go(session.state, key, params)

export const PIN_FORMAT = /^\d{5}$/
export const MAX_PIN_ATTEMPTS = 3
