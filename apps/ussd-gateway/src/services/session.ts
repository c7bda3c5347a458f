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
 * bytes. Append fields at the end; never reorder. Both directions are spelled out field by field
 * (a loop assigning only the present keys made a different shape per combination of fields).
 * Format 2 changed the text digest (SHA3-256 to SHA-256): a format-1 session cannot be continued
 * and reads as expired, so a user caught mid-dialogue by the upgrade dials again.
 */
const FORMAT = 2

export function encodeSession (s: Session): string {
  const values = [
    FORMAT, s.id, s.phone, s.serviceCode, s.networkCode, s.state, s.page, s.language, s.textLength, s.textDigest, s.sequence,
    s.message, s.flash, s.topic, s.customerId, s.name, s.email, s.loginId, s.draftName, s.draftEmail, s.draftPin, s.startedAt
  ]
  // Absent fields become null (trailing ones dropped); null and undefined mean the same to every reader.
  while (values[values.length - 1] == null) values.pop()
  return JSON.stringify(values)
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined)
const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined)

/** A session's fields: `createSession` fills in the optional ones. */
export type SessionInit = Pick<Session, 'id' | 'phone' | 'state' | 'message'> & Partial<Session>

/**
 * Every session is built here with all fields in one order, so all of them share one hidden class
 * (the menu code reading them stays monomorphic) and a field set later in a hop changes a value,
 * not the object's shape.
 */
export function createSession (s: SessionInit): Session {
  return {
    id: s.id,
    phone: s.phone,
    serviceCode: s.serviceCode ?? '',
    networkCode: s.networkCode,
    state: s.state,
    page: s.page ?? 0,
    language: s.language ?? 'en',
    textLength: s.textLength ?? 0,
    textDigest: s.textDigest ?? '',
    sequence: s.sequence,
    message: s.message,
    flash: s.flash,
    topic: s.topic,
    customerId: s.customerId,
    name: s.name,
    email: s.email,
    loginId: s.loginId,
    draftName: s.draftName,
    draftEmail: s.draftEmail,
    draftPin: s.draftPin,
    startedAt: s.startedAt ?? 0
  }
}

/** Undefined for anything that is not a session record of this format (corrupt, foreign or older). */
export function decodeSession (text: string): Session | undefined {
  let v: unknown
  try {
    v = JSON.parse(text)
  } catch {
    return undefined
  }
  if (!Array.isArray(v) || v[0] !== FORMAT) return undefined
  const [id, phone, state, message] = [str(v[1]), str(v[2]), str(v[5]), str(v[11])]
  if (id === undefined || phone === undefined || state === undefined || message === undefined) return undefined
  return createSession({
    id,
    phone,
    serviceCode: str(v[3]),
    networkCode: str(v[4]),
    state: state as StateName,
    page: num(v[6]),
    language: v[7] === 'sw' ? 'sw' : 'en',
    textLength: num(v[8]),
    textDigest: str(v[9]),
    sequence: num(v[10]),
    message,
    flash: typeof v[12] === 'object' && v[12] !== null ? v[12] as Flash : undefined,
    topic: num(v[13]),
    customerId: str(v[14]),
    name: str(v[15]),
    email: str(v[16]),
    loginId: str(v[17]),
    draftName: str(v[18]),
    draftEmail: str(v[19]),
    draftPin: str(v[20]),
    startedAt: num(v[21])
  })
}
