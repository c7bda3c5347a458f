import type { DomainStatus as RegistryDomainStatus } from '@impact/schemas'
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

/** The registry's statuses, so a new one cannot reach a screen without its words. */
export type DomainStatus = RegistryDomainStatus

export interface DomainView {
  did: string
  label: string
  status: DomainStatus
  /** YYYY-MM-DD; its meaning depends on the status. */
  date?: string | undefined
}

export interface StoveDraft {
  serial: string
  household?: { customerId: string, name: string, did: string, phone?: string } | undefined
  /** The registry's Idempotency-Key, so a retried confirmation registers once. */
  key?: string | undefined
  did?: string | undefined
}

/** Never holds a PIN: PINs are masked in `keptText`, and one awaiting confirmation is sealed. */
export interface Session {
  id: string
  phone: string
  serviceCode: string
  networkCode?: string | undefined
  state: StateName
  page: number
  language: Language
  keptText: string
  /** Latest-input aggregators (Hubtel). */
  sequence?: number | undefined
  /** Replayed on a retry. */
  message: string
  flash?: Flash | undefined
  topic?: number | undefined
  customerId?: string | undefined
  name?: string | undefined
  email?: string | null | undefined
  loginId?: string | undefined
  draftName?: string | undefined
  draftEmail?: string | null | undefined
  draftPin?: string | undefined
  /** Lets a retried confirmation find the account it created. */
  creationKey?: string | undefined
  startedAt: number
  /** Sessions compare it to the account's to notice a PIN changed since. */
  pinVersion?: number | undefined
  /** The session's own phone may be another one. */
  accountPhone?: string | undefined
  hops?: number | undefined
  /** As at the login; acting re-reads them. */
  roles?: Role[] | undefined
  oracleSessionId?: string | undefined
  questionId?: string | undefined
  answer?: string | undefined
  domains?: DomainView[] | undefined
  domain?: DomainView | undefined
  stove?: StoveDraft | undefined
  recovered?: { ids: string[], sms: boolean } | undefined
}

// Positional JSON behind a format number keeps live sessions small; within a format fields are only appended.
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
