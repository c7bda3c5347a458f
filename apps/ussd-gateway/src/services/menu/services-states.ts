import { findAccount, updatePinRecord, type Account } from '../../db/accounts.repository.ts'
import { isWeakPin } from '../pin-vault.ts'
import type { Session } from '../session.ts'
import { checkPin } from './login-states.ts'
import { languageMenu } from './main-states.ts'
import { end, go, PIN_FORMAT, refuse, type MachineDeps, type StateDef, type Step } from './types.ts'

const logOut = (s: Session) => {
  s.customerId = s.name = s.email = s.draftPin = undefined
}

/**
 * The logged-in account while it may still act, or the step that stops the session using it: an
 * account locked since the login (three wrong PINs from any phone) ends the session, so a lock
 * holds against sessions already open; a missing one logs out to the account menu.
 */
async function activeAccount (s: Session, deps: MachineDeps): Promise<{ account: Account } | { stop: Step }> {
  const account = s.customerId === undefined ? undefined : await findAccount(deps.db, s.customerId)
  if (account?.status === 'active') return { account }
  logOut(s)
  return { stop: account === undefined ? go('accountMenu') : end('services.sessionLocked') }
}

/** After login: account details, PIN change, language (back to My Account) and log out. */
export const servicesStates = {
  servicesMenu: {
    parent: () => 'preMenu',
    screen: (s, t) => ({
      lines: [t('services.title', { id: s.customerId ?? '' }), t('services.details'), t('services.changePin'), t('services.language'), t('services.logout')],
      footer: [t('nav.back')]
    }),
    input: (value, s, deps) => {
      if (s.customerId === undefined) return go('accountMenu')
      if (value === '1' || value === '2') {
        const next = value === '1' ? 'accountDetails' : 'changePinCurrent'
        return activeAccount(s, deps).then((active) => ('stop' in active ? active.stop : go(next)))
      }
      if (value === '3') return go('servicesLanguage')
      if (value === '4') {
        logOut(s)
        return go('preMenu', 'services.loggedOut')
      }
      return refuse(s, 'error.invalidChoice')
    }
  },

  servicesLanguage: languageMenu('servicesMenu'),

  accountDetails: {
    parent: () => 'servicesMenu',
    screen: (s, t) => ({
      lines: t('services.detailsText', {
        name: s.name ?? '',
        id: s.customerId ?? '',
        phone: s.phone,
        email: s.email ?? t('services.noEmail')
      }).split('\n'),
      footer: [t('nav.back')]
    }),
    input: (_value, s) => refuse(s, 'error.invalidChoice')
  },

  changePinCurrent: {
    prompt: 'secret',
    parent: () => 'servicesMenu',
    screen: (_s, t) => ({ lines: [t('pin.enterCurrent')], footer: [t('nav.back')] }),
    input: async (value, s, deps) => {
      if (!PIN_FORMAT.test(value)) return refuse(s, 'login.pinFormat')
      const active = await activeAccount(s, deps)
      if ('stop' in active) return active.stop
      const failure = await checkPin(deps, s, active.account, value)
      if (failure !== undefined) {
        if ('end' in failure) logOut(s)
        return failure
      }
      return go('changePinNew')
    }
  },

  changePinNew: {
    prompt: 'secret',
    parent: () => 'servicesMenu',
    screen: (_s, t) => ({ lines: [t('pin.enterNew')], footer: [t('nav.back')] }),
    input: async (value, s, deps) => {
      if (!PIN_FORMAT.test(value)) return refuse(s, 'login.pinFormat')
      if (isWeakPin(value)) return refuse(s, 'create.weakPin')
      const active = await activeAccount(s, deps)
      if ('stop' in active) return active.stop
      if ((await deps.vault.verify(value, active.account.pinRecord)).ok) return refuse(s, 'pin.sameAsCurrent')
      s.draftPin = await deps.vault.seal(value)
      return go('changePinConfirm')
    }
  },

  changePinConfirm: {
    prompt: 'secret',
    parent: () => 'changePinNew',
    screen: (_s, t) => ({ lines: [t('pin.confirmNew')], footer: [t('nav.back')] }),
    input: async (value, s, deps) => {
      if (!PIN_FORMAT.test(value)) return refuse(s, 'login.pinFormat')
      const pinRecord = s.draftPin
      s.draftPin = undefined
      if (pinRecord === undefined || s.customerId === undefined) return go('servicesMenu')
      if (!(await deps.vault.verify(value, pinRecord)).ok) return go('changePinNew', 'pin.mismatch')
      if (!(await updatePinRecord(deps.db, s.customerId, pinRecord, deps.vault.keyId))) {
        logOut(s)
        return end('services.sessionLocked')
      }
      return go('servicesMenu', 'pin.changed')
    }
  }
} satisfies Record<string, StateDef>
