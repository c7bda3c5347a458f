import { activeAccount, logOut } from './account-access.ts'
import { checkPin } from './pin-check.ts'
import { languageMenu } from './main-states.ts'
import { newPinStates } from './new-pin-states.ts'
import { go, PIN_FORMAT, refuse, type StateDef } from './types.ts'

/** After login: account details, PIN change, language (back to My Account) and log out. */
export const servicesStates = {
  servicesMenu: {
    parent: () => 'preMenu',
    screen: (s, t) => ({
      lines: [
        t('services.title', { id: s.customerId ?? '' }),
        t('services.details'),
        t('services.changePin'),
        t('services.language'),
        t('services.logout')
      ],
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
        phone: s.accountPhone ?? s.phone,
        email: s.email ?? t('services.noEmail')
      }).split('\n'),
      footer: [t('nav.back')]
    }),
    input: (_value, s) => refuse(s, 'error.invalidChoice')
  },

  changePinCurrent: {
    prompt: 'secret',
    parent: () => 'servicesMenu',
    view: (t) => ({ lines: [t('pin.enterCurrent')], footer: [t('nav.back')] }),
    input: async (value, s, deps) => {
      if (!PIN_FORMAT.test(value)) return refuse(s, 'login.pinFormat')
      const active = await activeAccount(s, deps)
      if ('stop' in active) return active.stop
      const checked = await checkPin(deps, s, active.account.customerId, value)
      if ('stop' in checked) {
        if ('end' in checked.stop) logOut(s)
        return checked.stop
      }
      return go('changePinNew')
    }
  },

  ...newPinStates({
    enter: 'changePinNew',
    confirm: 'changePinConfirm',
    parent: 'servicesMenu',
    account: activeAccount,
    done: () => go('servicesMenu', 'pin.changed')
  })
} satisfies Record<string, StateDef>
