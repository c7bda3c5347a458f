import type { Language } from '../db/types.ts'
import { MASK } from './cumulative-text.ts'
import type { MessageKey, MessageParams } from './menu/i18n.ts'

export type StateName =
  | 'preMenu' | 'knowMore' | 'knowMoreTopic' | 'language'
  | 'accountMenu' | 'loginId' | 'loginPin' | 'resetPinNew' | 'resetPinConfirm'
  | 'createName' | 'createEmail' | 'createPin' | 'createPinConfirm' | 'createDone'
  | 'servicesMenu' | 'servicesLanguage' | 'accountDetails' | 'changePinCurrent' | 'changePinNew' | 'changePinConfirm'

export interface Flash { key: MessageKey, params?: MessageParams }

/**
 * One live USSD session. It never holds a PIN: the last cumulative text is kept with what was
 * typed at PIN prompts masked (cumulative-text.ts), and a PIN awaiting confirmation is a sealed record.
 */
export interface Session {
  id: string
  phone: string
  serviceCode: string
  networkCode?: string | undefined
  state: StateName
  page: number
  language: Language
  /** The last cumulative `text`, PINs masked (retries and new inputs are found with it). */
  keptText: string
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
  /** Drawn with a sign-up's PIN and stored with the account: a retried confirmation finds the account it created. */
  creationKey?: string | undefined
  startedAt: number
  /** The version of the PIN this session proved (logged in, or a temporary PIN being replaced). */
  pinVersion?: number | undefined
  /** The logged-in account's registered phone (the session's own phone may be another one). */
  accountPhone?: string | undefined
  /** Requests answered in this session, retries included (its record keeps the count). */
  hops?: number | undefined
}

/**
 * Stored form: a positional JSON array behind a format number, to keep live sessions small; within a
 * format, fields are only appended. Other formats read as expired, but format 3 (`#` as the mask) is read.
 */
const FORMAT = 4
const MASKED_WITH_HASH = 3

export function encodeSession (s: Session): string {
  const values = [
    FORMAT, s.id, s.phone, s.serviceCode, s.networkCode, s.state, s.page, s.language, s.keptText, s.sequence,
    s.message, s.flash, s.topic, s.customerId, s.name, s.email, s.loginId, s.draftName, s.draftEmail, s.draftPin,
    s.startedAt, s.pinVersion, s.accountPhone, s.creationKey, s.hops
  ]
  // Absent fields become null (trailing ones dropped); null and undefined mean the same to every reader.
  while (values[values.length - 1] == null) values.pop()
  return JSON.stringify(values)
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined)
const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined)

export type SessionInit = Pick<Session, 'id' | 'phone' | 'state' | 'message'> & Partial<Session>

/** A session with every field present, defaults filled in. */
export function createSession (s: SessionInit): Session {
  return {
    id: s.id,
    phone: s.phone,
    serviceCode: s.serviceCode ?? '',
    networkCode: s.networkCode,
    state: s.state,
    page: s.page ?? 0,
    language: s.language ?? 'en',
    keptText: s.keptText ?? '',
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
    startedAt: s.startedAt ?? 0,
    pinVersion: s.pinVersion,
    accountPhone: s.accountPhone,
    creationKey: s.creationKey,
    hops: s.hops
  }
}

/** Undefined for anything that is not a session record of a format read here (corrupt, foreign or older). */
export function decodeSession (text: string): Session | undefined {
  let v: unknown
  try {
    v = JSON.parse(text)
  } catch {
    return undefined
  }
  if (!Array.isArray(v) || (v[0] !== FORMAT && v[0] !== MASKED_WITH_HASH)) return undefined
  const [id, phone, state, message] = [str(v[1]), str(v[2]), str(v[5]), str(v[10])]
  if (id === undefined || phone === undefined || state === undefined || message === undefined) return undefined
  return createSession({
    id,
    phone,
    serviceCode: str(v[3]),
    networkCode: str(v[4]),
    state: state as StateName,
    page: num(v[6]),
    language: v[7] === 'sw' ? 'sw' : 'en',
    keptText: v[0] === MASKED_WITH_HASH ? str(v[8])?.replaceAll('#', MASK) : str(v[8]),
    sequence: num(v[9]),
    message,
    flash: typeof v[11] === 'object' && v[11] !== null ? v[11] as Flash : undefined,
    topic: num(v[12]),
    customerId: str(v[13]),
    name: str(v[14]),
    email: str(v[15]),
    loginId: str(v[16]),
    draftName: str(v[17]),
    draftEmail: str(v[18]),
    draftPin: str(v[19]),
    startedAt: num(v[20]),
    pinVersion: num(v[21]),
    accountPhone: str(v[22]),
    creationKey: str(v[23]),
    hops: num(v[24])
  })
}
