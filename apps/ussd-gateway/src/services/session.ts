import type { Language } from '../db/types.ts'
import type { MessageKey, MessageParams } from './menu/i18n.ts'

export type StateName =
  | 'preMenu' | 'knowMore' | 'knowMoreTopic' | 'language'
  | 'accountMenu' | 'loginId' | 'loginPin'
  | 'createName' | 'createEmail' | 'createPin' | 'createPinConfirm' | 'createDone'
  | 'servicesMenu' | 'accountDetails' | 'changePinCurrent' | 'changePinNew' | 'changePinConfirm'

export interface Flash { key: MessageKey, params?: MessageParams }

/**
 * One live USSD session. It never holds a PIN or the raw cumulative text (which carries PINs):
 * only a keyed digest and the length of that text, and PINs awaiting confirmation as sealed records.
 */
export interface Session {
  id: string
  phone: string
  serviceCode: string
  networkCode?: string | undefined
  state: StateName
  page: number
  language: Language
  /** Length and keyed digest of the last cumulative `text` (retries and suffixes are found with them). */
  textLength: number
  textDigest: string
  /** Last request sequence of latest-input aggregators (Hubtel). */
  sequence?: number | undefined
  /** Body of the last screen sent (replayed on a retry, shown by the debug endpoint). */
  message: string
  flash?: Flash | undefined
  /** Topic shown by knowMoreTopic. */
  topic?: number | undefined
  /** Logged-in account. */
  customerId?: string | undefined
  name?: string | undefined
  email?: string | null | undefined
  /** Customer id typed at login, before the PIN. */
  loginId?: string | undefined
  draftName?: string | undefined
  draftEmail?: string | null | undefined
  /** Sealed PIN record (services/pin-vault.ts) waiting for its confirmation. */
  draftPin?: string | undefined
  startedAt: number
}

/** Stored form: one-letter keys and no undefined fields keep a live session around 300 bytes. */
const KEYS = {
  id: 'i',
  phone: 'p',
  serviceCode: 'c',
  networkCode: 'w',
  state: 's',
  page: 'g',
  language: 'l',
  textLength: 'n',
  textDigest: 'h',
  sequence: 'q',
  message: 'm',
  flash: 'f',
  topic: 'o',
  customerId: 'u',
  name: 'a',
  email: 'e',
  loginId: 'x',
  draftName: 'dn',
  draftEmail: 'de',
  draftPin: 'dp',
  startedAt: 't'
} as const satisfies Record<keyof Session, string>

const FROM_STORED = new Map<string, keyof Session>(Object.entries(KEYS).map(([long, short]) => [short, long as keyof Session]))

export function encodeSession (session: Session): string {
  const stored: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(session)) {
    if (value !== undefined) stored[KEYS[name as keyof Session]] = value
  }
  return JSON.stringify(stored)
}

/** Undefined for anything that is not a session record (a corrupt or foreign value). */
export function decodeSession (text: string): Session | undefined {
  let stored: unknown
  try {
    stored = JSON.parse(text)
  } catch {
    return undefined
  }
  if (typeof stored !== 'object' || stored === null) return undefined
  const session: Record<string, unknown> = {}
  for (const [short, value] of Object.entries(stored)) {
    const name = FROM_STORED.get(short)
    if (name !== undefined) session[name] = value
  }
  const s = session as Partial<Session>
  if (typeof s.id !== 'string' || typeof s.phone !== 'string' || typeof s.state !== 'string' || typeof s.message !== 'string') return undefined
  return session as unknown as Session
}
