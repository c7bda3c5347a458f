import { findAccount, type Account } from '../../db/accounts.repository.ts'
import { chargePinAttempt, refundPinAttempt, settleRightPin } from '../../db/pin-attempts.repository.ts'
import { UssdPinBusyError } from '../../errors.ts'
import type { Session } from '../session.ts'
import type { MessageRef } from './i18n.ts'
import { end, go, MAX_PIN_ATTEMPTS, refuse, type MachineDeps, type Step } from './types.ts'

const MINUTE_MS = 60_000

/** Rounded up; whole hours past 90 minutes. */
export function waitText (ms: number): MessageRef {
  const minutes = Math.max(1, Math.ceil(ms / MINUTE_MS))
  if (minutes === 1) return { key: 'time.minute' }
  if (minutes <= 90) return { key: 'time.minutes', params: { n: minutes } }
  return { key: 'time.hours', params: { n: Math.ceil(minutes / 60) } }
}

/** A lock whose time is up lifts at the next attempt. */
export const isLocked = (account: Account, now = Date.now()): boolean =>
  account.status === 'locked' && (account.lockedUntil === null || account.lockedUntil.getTime() > now)

export const lockedEnd = (account: Account, now = Date.now()): Step =>
  end('login.locked', { id: account.customerId, wait: waitText((account.lockedUntil?.getTime() ?? now) - now) })

async function notCounted (deps: MachineDeps, customerId: string): Promise<Step> {
  const account = await findAccount(deps.db, customerId)
  if (account === undefined) return go('accountMenu')
  // The time after the read: a lock placed by a parallel attempt may be younger than this one.
  return account.status === 'locked' ? lockedEnd(account, Date.now()) : end('services.pinReplaced')
}

/** Undefined when the PIN queue is full: the next login reseals instead. */
async function resealed (deps: MachineDeps, pin: string): Promise<{ pinRecord: string, pinKeyId: string } | undefined> {
  try {
    return { pinRecord: await deps.vault.seal(pin), pinKeyId: deps.vault.keyId }
  } catch (error) {
    if (error instanceof UssdPinBusyError) return undefined
    throw error
  }
}

/** `notCounted`: nothing was compared (locked already, PIN replaced meanwhile, or the account gone). */
export type PinMiss = 'wrong' | 'lockedNow' | 'notCounted'

type PinCheck = { account: Account } | { stop: Step, miss: PinMiss }

/** Counting before comparing caps parallel guesses from any number of sessions at 3 comparisons. */
export async function checkPin (
  deps: MachineDeps,
  session: Session,
  customerId: string,
  pin: string
): Promise<PinCheck> {
  const checked = await comparePin(deps, session, customerId, pin)
  if ('miss' in checked) deps.onPinMiss?.(checked.miss)
  return checked
}

async function comparePin (deps: MachineDeps, session: Session, customerId: string, pin: string): Promise<PinCheck> {
  const chargedAt = new Date()
  const now = chargedAt.getTime()
  const policy = { maxAttempts: MAX_PIN_ATTEMPTS, ...deps.lockout }
  const charged = await chargePinAttempt(deps.db, customerId, policy, chargedAt)
  if (charged === undefined) return { stop: await notCounted(deps, customerId), miss: 'notCounted' }
  let check
  try {
    check = await deps.vault.verify(pin, charged.pinRecord)
  } catch (error) {
    // Nothing was compared (the PIN queue is full, no key opens the record): the attempt does not count.
    await refundPinAttempt(deps.db, charged)
    throw error
  }
  // The state says which check it was (login, a forgotten PIN, a confirmation); never the PIN or the phone.
  const audited = { actor: customerId, subject: customerId }
  const facts = { state: session.state, serviceCode: session.serviceCode, attempts: charged.pinAttempts }
  if (!check.ok) {
    await deps.audit.record({ action: 'auth.pin', outcome: 'failure', ...audited, details: facts })
    if (charged.status === 'locked') {
      await deps.audit.record({
        action: 'auth.lockout', outcome: 'failure', ...audited, details: { ...facts, lockedUntil: charged.lockedUntil }
      })
      const wait = waitText((charged.lockedUntil?.getTime() ?? now) - now)
      const lockedUntil = charged.lockedUntil ?? chargedAt
      const app = deps.programmes.of(session.serviceCode).name
      // To the account's own phone, in its language: the session may be on another phone.
      deps.sms.notify(charged.phoneNumber, { kind: 'lockout', app, customerId, wait, lockedUntil })
      return { stop: end('login.lockedNow', { n: MAX_PIN_ATTEMPTS, max: MAX_PIN_ATTEMPTS, wait }), miss: 'lockedNow' }
    }
    return {
      stop: refuse(session, 'login.wrongPin', { n: charged.pinAttempts, max: MAX_PIN_ATTEMPTS }),
      miss: 'wrong'
    }
  }
  const reseal = check.stale ? await resealed(deps, pin) : undefined
  if (!(await settleRightPin(deps.db, customerId, { pinVersion: charged.pinVersion, chargedAt, reseal }))) {
    return { stop: await notCounted(deps, customerId), miss: 'notCounted' }
  }
  const settled = { status: 'active', pinAttempts: 0, lockouts: 0, lockedReason: null, lockedUntil: null } as const
  await deps.audit.record({ action: 'auth.pin', outcome: 'success', ...audited, details: facts })
  return { account: { ...charged, ...settled } }
}
