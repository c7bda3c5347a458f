import type { PinMiss } from './pin-check.ts'
import type { Kysely } from 'kysely'
import type { AuditTrail } from '@impact/service-kit'
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

export interface MachineDeps {
  db: Kysely<DB>
  vault: PinVault
  keys: AccountKeys
  accountsPerPhone: number
  /** Each lockout doubles the last, up to `maxMs`. */
  lockout: { baseMs: number, maxMs: number }
  programmes: Pick<ProgrammeCatalog, 'of'>
  saveLanguage: (phoneNumber: string, language: Language) => Promise<void>
  /** Neither `notify` nor `enqueue` waits on a send. */
  sms: Pick<SmsService, 'notify' | 'enqueue' | 'enabled'>
  platform: Platform
  assistant: Assistant
  /** Hears of each PIN that did not open the account (metrics). */
  onPinMiss?: (miss: PinMiss) => void
  /** PIN checks and lockouts are recorded here. */
  audit: Pick<AuditTrail, 'record'>
}

export type Step = { to: StateName, flash?: Flash | undefined } | { end: Flash }

interface StateBase {
  /** Free input (id, name, PIN): shortcut dials stop here; `secret` input is masked in the kept text. */
  prompt?: 'text' | 'secret'
  parent?: (session: Session) => StateName
}

/** Handles any input but a navigation key; bad input is refused with a reason, never thrown. */
interface Guard {
  input: (value: string, session: Session, deps: MachineDeps) => Step | Promise<Step>
}

/** A `view` is the same for every session, so it is paged once. */
export type StateDef = StateBase & Guard & (
  | { view: (t: Translator, programme: Programme) => Screen, screen?: never }
  | { screen: (session: Session, t: Translator, programme: Programme) => Screen, view?: never }
)

export const go = (to: StateName, key?: MessageKey, params?: MessageParams): Step =>
  ({ to, flash: key === undefined ? undefined : { key, ...(params !== undefined ? { params } : {}) } })

export const end = (key: MessageKey, params?: MessageParams): Step =>
  ({ end: { key, ...(params !== undefined ? { params } : {}) } })

export const refuse = (session: Session, key: MessageKey, params?: MessageParams): Step =>
  go(session.state, key, params)

export const PIN_FORMAT = /^\d{5}$/
export const MAX_PIN_ATTEMPTS = 3
