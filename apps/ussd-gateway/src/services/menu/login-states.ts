import { findAccount, provideIdentity, resealSigningKey, type Account } from '../../db/accounts.repository.ts'
import { phoneHasRoom, phoneTakenEnd } from './create-states.ts'
import { normaliseCustomerId } from '../customer-id.ts'
import type { Session } from '../session.ts'
import { startRecovery } from './forgot-states.ts'
import { newPinStates } from './new-pin-states.ts'
import { landing } from './platform-menu.ts'
import { checkPin, isLocked, lockedEnd } from './pin-check.ts'
import { end, go, PIN_FORMAT, refuse, type MachineDeps, type StateDef, type Step } from './types.ts'

/**
 * The account whose temporary PIN (support's reset) the session proved (`loginId`), while that
 * PIN is still good; otherwise the step that stops the reset.
 */
async function resettingAccount (s: Session, deps: MachineDeps): Promise<{ account: Account } | { stop: Step }> {
  const account = s.loginId === undefined ? undefined : await findAccount(deps.db, s.loginId)
  if (account === undefined) return { stop: go('accountMenu') }
  // Locked since this session proved the temporary PIN (even if the lock's time is up): log in again.
  if (account.status === 'locked') return { stop: lockedEnd(account) }
  // Another temporary PIN was issued since, or a new PIN chosen elsewhere: this one is spent.
  if (account.pinResetExpiresAt === null || account.pinVersion !== s.pinVersion) {
    return { stop: end('services.pinReplaced') }
  }
  if (account.pinResetExpiresAt.getTime() <= Date.now()) return { stop: end('login.tempPinExpired') }
  return { account }
}

/**
 * After a proven PIN: an account from before identities gets its did:key now, and a key sealed under a
 * retired key is sealed again under the current one (as PINs are). A key no configured key opens is left
 * as it is: logging in does not need it, and acting as the account reports it.
 */
async function settleIdentity (deps: MachineDeps, account: Account): Promise<void> {
  if (account.did === null) {
    await provideIdentity(deps.db, account.customerId, await deps.keys.create())
    return
  }
  const resealed = deps.keys.resealed(account)
  if (resealed !== undefined && account.signingKeyRecord !== null) {
    await resealSigningKey(deps.db, account.customerId, account.signingKeyRecord, resealed)
  }
}

const logIn = (s: Session, account: Account) => {
  s.customerId = account.customerId
  s.pinVersion = account.pinVersion
  s.name = account.fullName
  s.email = account.email
  s.accountPhone = account.phoneNumber
  s.roles = account.roles
  s.loginId = undefined
}

/** The account menu, login by customer id + PIN, and choosing a new PIN after support's reset. */
export const loginStates = {
  accountMenu: {
    parent: () => 'preMenu',
    view: (t) => ({
      lines: [t('account.title'), t('account.login'), t('account.create'), t('account.forgot')],
      footer: [t('nav.back')]
    }),
    input: async (value, s, deps) => {
      if (value === '1') return go('loginId')
      // Said before the name and PIN are typed; the insert checks again (parallel sign-ups).
      if (value === '2') return await phoneHasRoom(s, deps) ? go('createName') : phoneTakenEnd(s, deps)
      if (value === '3') return await startRecovery(s, deps)
      return refuse(s, 'error.invalidChoice')
    }
  },

  loginId: {
    prompt: 'text',
    parent: () => 'accountMenu',
    view: (t) => ({ lines: [t('login.enterId')], footer: [t('nav.back')] }),
    input: async (value, s, deps) => {
      const id = normaliseCustomerId(value)
      if (id === undefined) return refuse(s, 'login.invalidId')
      const account = await findAccount(deps.db, id)
      if (account === undefined) return refuse(s, 'login.notFound', { id })
      if (isLocked(account)) return lockedEnd(account)
      s.loginId = id
      return go('loginPin')
    }
  },

  loginPin: {
    prompt: 'secret',
    parent: () => 'loginId',
    view: (t) => ({ lines: [t('login.enterPin')], footer: [t('nav.back')] }),
    input: async (value, s, deps) => {
      if (!PIN_FORMAT.test(value)) return refuse(s, 'login.pinFormat')
      if (s.loginId === undefined) return go('loginId')
      const checked = await checkPin(deps, s, s.loginId, value)
      if ('stop' in checked) return checked.stop
      const { account } = checked
      await settleIdentity(deps, account)
      if (account.pinResetExpiresAt !== null) {
        // A temporary PIN from support: it only lets the user choose a new one, before it expires.
        if (account.pinResetExpiresAt.getTime() <= Date.now()) return end('login.tempPinExpired')
        s.pinVersion = account.pinVersion
        return go('resetPinNew', 'pin.mustChange')
      }
      logIn(s, account)
      return go(landing(s, deps.programmes.of(s.serviceCode)), 'login.success')
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
