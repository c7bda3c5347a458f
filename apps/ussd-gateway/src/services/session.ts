import type { Language, Role } from '../db/types.ts'
import { MASK } from './cumulative-text.ts'
import type { MessageKey, MessageParams } from './menu/i18n.ts'

export type StateName =
  | 'preMenu' | 'knowMore' | 'knowMoreTopic' | 'language'
  | 'accountMenu' | 'loginId' | 'loginPin' | 'resetPinNew' | 'resetPinConfirm' | 'forgotPin' | 'forgotDone'
  | 'createName' | 'createEmail' | 'createPin' | 'createPinConfirm' | 'createDone'
  | 'servicesMenu' | 'servicesLanguage' | 'accountDetails' | 'changePinCurrent' | 'changePinNew' | 'changePinConfirm'
  | 'myDomains' | 'domainDetail' | 'checkSerial' | 'checkResult'
  | 'askQuestion' | 'askWaiting' | 'askAnswer'
  | 'registerSerial' | 'registerHousehold' | 'registerConfirm' | 'registerDone'

export interface Flash { key: MessageKey, params?: MessageParams }

/** A registry status, as domain-api reports it. */
export type DomainStatus = 'draft' | 'verification_submitted' | 'verified' | 'rejected' | 'expired' | 'deactivated'

/** A domain as the menus show it: DID, a short label (serial or name), status and the date that goes with it. */
export interface DomainView {
  did: string
  label: string
  status: DomainStatus
  /** YYYY-MM-DD: verified on, vote closes on, expired on or deactivated on, by status. */
  date?: string | undefined
}

/** A field agent's registration in progress: the serial, then the household, then the registry's DID. */
export interface StoveDraft {
  serial: string
  household?: { customerId: string, name: string, did: string, phone?: string } | undefined
  /** Drawn when the confirmation is shown: the registry's Idempotency-Key, so a retried confirmation registers once. */
  key?: string | undefined
  /** The registered domain's DID, once done. */
  did?: string | undefined
}

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
  /** The logged-in account's roles, as at the login (acting re-reads them). */
  roles?: Role[] | undefined
  /** The oracle session of this USSD session (one per USSD session). */
  oracleSessionId?: string | undefined
  /** A question whose answer is still being prepared (services/assistant.ts). */
  questionId?: string | undefined
  /** The assistant's answer on screen, plain GSM-7. */
  answer?: string | undefined
  /** My stoves as listed (picked by number), and the domain whose details are shown. */
  domains?: DomainView[] | undefined
  domain?: DomainView | undefined
  stove?: StoveDraft | undefined
  /** Customer ids a forgotten-id PIN proved (on this phone), and whether they were also queued by SMS. */
  recovered?: { ids: string[], sms: boolean } | undefined
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
    s.startedAt, s.pinVersion, s.accountPhone, s.creationKey, s.hops, s.roles, s.oracleSessionId, s.questionId,
    s.answer, s.domains, s.domain, s.stove, s.recovered
  ]
  // Absent fields become null (trailing ones dropped); null and undefined mean the same to every reader.
  while (values[values.length - 1] == null) values.pop()
  return JSON.stringify(values)
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined)
const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined)
const list = (value: unknown): unknown[] | undefined => (Array.isArray(value) ? value : undefined)
// Records this app wrote itself: an object is taken as the shape it was stored with.
const obj = <T>(value: unknown): T | undefined =>
  (typeof value === 'object' && value !== null && !Array.isArray(value) ? value as T : undefined)

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
    hops: s.hops,
    roles: s.roles,
    oracleSessionId: s.oracleSessionId,
    questionId: s.questionId,
    answer: s.answer,
    domains: s.domains,
    domain: s.domain,
    stove: s.stove,
    recovered: s.recovered
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
    hops: num(v[24]),
    roles: list(v[25]) as Role[] | undefined,
    oracleSessionId: str(v[26]),
    questionId: str(v[27]),
    answer: str(v[28]),
    domains: list(v[29]) as DomainView[] | undefined,
    domain: obj<DomainView>(v[30]),
    stove: obj<StoveDraft>(v[31]),
    recovered: obj<NonNullable<Session['recovered']>>(v[32])
  })
}
