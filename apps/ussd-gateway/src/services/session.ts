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

/**
 * Stored form: a positional JSON array behind a format number, so a live session takes about 250
 * bytes and decodes without per-key lookups. Append fields at the end; never reorder.
 */
const FORMAT = 1
const FIELDS = [
  'id', 'phone', 'serviceCode', 'networkCode', 'state', 'page', 'language', 'textLength', 'textDigest', 'sequence',
  'message', 'flash', 'topic', 'customerId', 'name', 'email', 'loginId', 'draftName', 'draftEmail', 'draftPin', 'startedAt'
] as const satisfies ReadonlyArray<keyof Session>

export function encodeSession (session: Session): string {
  const values: unknown[] = [FORMAT]
  // Absent fields are null (trailing ones dropped); null and undefined mean the same to every reader.
  for (const field of FIELDS) values.push(session[field] ?? null)
  while (values[values.length - 1] === null) values.pop()
  return JSON.stringify(values)
}

/** Undefined for anything that is not a session record of this format (corrupt, foreign or older). */
export function decodeSession (text: string): Session | undefined {
  let values: unknown
  try {
    values = JSON.parse(text)
  } catch {
    return undefined
  }
  if (!Array.isArray(values) || values[0] !== FORMAT) return undefined
  const session: Record<string, unknown> = {}
  for (let i = 0; i < FIELDS.length; i++) {
    const value = values[i + 1]
    if (value !== null && value !== undefined) session[FIELDS[i] as string] = value
  }
  const s = session as Partial<Session>
  if (typeof s.id !== 'string' || typeof s.phone !== 'string' || typeof s.state !== 'string' || typeof s.message !== 'string') return undefined
  return session as unknown as Session
}
