import { findAccount, recordFailedPin, resealPinRecord, resetPinAttempts, type Account } from '../../db/accounts.repository.ts'
import { normaliseCustomerId } from '../customer-id.ts'
import type { Session } from '../session.ts'
import { newPinStates } from './new-pin-states.ts'
import { end, go, MAX_PIN_ATTEMPTS, PIN_FORMAT, refuse, type MachineDeps, type StateDef, type Step } from './types.ts'

/**
 * Checks a PIN against the account, counting failures in the database (not in the session, so
 * a new session does not reset them). Resolves undefined when the PIN is right, otherwise the
 * step that says so: `Incorrect PIN (n/3)` on the current screen, or the lockout END (`is now
 * locked` for the attempt that locked it, `is locked` for one that found it locked).
 */
export async function checkPin (deps: MachineDeps, session: Session, account: Account, pin: string): Promise<Step | undefined> {
  const check = await deps.vault.verify(pin, account.pinRecord)
  if (!check.ok) {
    const result = await recordFailedPin(deps.db, account.customerId, MAX_PIN_ATTEMPTS)
    // Another attempt locked it meanwhile: this one neither counts nor says it locked the account.
    if (result === undefined) return end('login.locked', { id: account.customerId })
    const params = { n: Math.min(result.attempts, MAX_PIN_ATTEMPTS), max: MAX_PIN_ATTEMPTS }
    return result.status === 'locked' ? end('login.lockedNow', params) : refuse(session, 'login.wrongPin', params)
  }
  if (check.stale) {
    // Sealed under a retired key or older scrypt cost: reseal now that the PIN is at hand.
    await resealPinRecord(deps.db, account.customerId, await deps.vault.seal(pin), deps.vault.keyId)
  } else if (account.pinAttempts > 0) {
    await resetPinAttempts(deps.db, account.customerId)
  }
  return undefined
}

/**
 * The account whose temporary PIN (support's reset) the session proved (`loginId`), while that
 * PIN is still good; otherwise the step that stops the reset.
 */
async function resettingAccount (s: Session, deps: MachineDeps): Promise<{ account: Account } | { stop: Step }> {
  const account = s.loginId === undefined ? undefined : await findAccount(deps.db, s.loginId)
  if (account === undefined) return { stop: go('accountMenu') }
  if (account.status === 'locked') return { stop: end('login.locked', { id: account.customerId }) }
  // Another temporary PIN was issued since, or a new PIN chosen elsewhere: this one is spent.
  if (account.pinResetExpiresAt === null || account.pinVersion !== s.pinVersion) return { stop: end('services.pinReplaced') }
  if (account.pinResetExpiresAt.getTime() <= Date.now()) return { stop: end('login.tempPinExpired') }
  return { account }
}

const logIn = (s: Session, account: Account) => {
  s.customerId = account.customerId
  s.pinVersion = account.pinVersion
  s.name = account.fullName
  s.email = account.email
  s.accountPhone = account.phoneNumber
  s.loginId = undefined
}

/** The account menu, login by customer id + PIN, and choosing a new PIN after support's reset. */
export const loginStates = {
  accountMenu: {
    parent: () => 'preMenu',
    view: (t) => ({ lines: [t('account.title'), t('account.login'), t('account.create')], footer: [t('nav.back')] }),
    input: (value, s) => {
      if (value === '1') return go('loginId')
      if (value === '2') return go('createName')
      return refuse(s, 'error.invalidChoice')
    }
  },

  loginId: {
    prompt: 'text',
    parent: () => 'accountMenu',
    view: (t) => ({ lines: [t('login.enterId')], footer: [t('nav.back')] }),
    io: true,
    input: async (value, s, deps) => {
      const id = normaliseCustomerId(value)
      if (id === undefined) return refuse(s, 'login.invalidId')
      const account = await findAccount(deps.db, id)
      if (account === undefined) return refuse(s, 'login.notFound', { id })
      if (account.status === 'locked') return end('login.locked', { id })
      s.loginId = id
      return go('loginPin')
    }
  },

  loginPin: {
    prompt: 'secret',
    parent: () => 'loginId',
    view: (t) => ({ lines: [t('login.enterPin')], footer: [t('nav.back')] }),
    io: true,
    input: async (value, s, deps) => {
      if (!PIN_FORMAT.test(value)) return refuse(s, 'login.pinFormat')
      const account = s.loginId === undefined ? undefined : await findAccount(deps.db, s.loginId)
      if (account === undefined) return go('loginId')
      if (account.status === 'locked') return end('login.locked', { id: account.customerId })
      const failure = await checkPin(deps, s, account, value)
      if (failure !== undefined) return failure
      if (account.pinResetExpiresAt !== null) {
        // A temporary PIN from support: it only lets the user choose a new one, before it expires.
        if (account.pinResetExpiresAt.getTime() <= Date.now()) return end('login.tempPinExpired')
        s.pinVersion = account.pinVersion
        return go('resetPinNew', 'pin.mustChange')
      }
      logIn(s, account)
      return go('servicesMenu', 'login.success')
    }
  },

  ...newPinStates({
    enter: 'resetPinNew',
    confirm: 'resetPinConfirm',
    parent: 'accountMenu',
    account: resettingAccount,
    done: (s, account) => {
      logIn(s, account)
      return go('servicesMenu', 'pin.changed')
    }
  })
} satisfies Record<string, StateDef>
