import { findAccountsOfPhone, type Account } from '../../db/accounts.repository.ts'
import type { Session } from '../session.ts'
import { checkPin, isLocked, waitText } from './pin-check.ts'
import { end, go, PIN_FORMAT, refuse, type MachineDeps, type StateDef, type Step } from './types.ts'

/** Each try is a counted attempt and a PIN hash, so the hop stays short. */
export const MAX_RECOVERABLE = 5

/** Only the session's own phone, so no other phone learns whether accounts exist. */
const accountsOfPhone = async (s: Session, deps: MachineDeps): Promise<Account[]> =>
  await findAccountsOfPhone(deps.db, s.phone, MAX_RECOVERABLE)

function lockedOnPhone (accounts: Account[]): Step {
  const now = Date.now()
  const soonest = Math.min(...accounts.map((account) => account.lockedUntil?.getTime() ?? now))
  return end('forgot.locked', { wait: waitText(soonest - now) })
}

function unrecoverable (accounts: Account[]): Step | undefined {
  if (accounts.length === 0) return end('forgot.noAccount')
  if (accounts.every((account) => isLocked(account))) return lockedOnPhone(accounts)
  return undefined
}

export const startRecovery = async (s: Session, deps: MachineDeps): Promise<Step> =>
  unrecoverable(await accountsOfPhone(s, deps)) ?? go('forgotPin')

/** Each try goes through the login's PIN check, so it counts toward that account's lockout. */
export const forgotStates = {
  forgotPin: {
    prompt: 'secret',
    parent: () => 'accountMenu',
    view: (t) => ({ lines: [t('forgot.enterPin')], footer: [t('nav.back')] }),
    input: async (value, s, deps) => {
      if (!PIN_FORMAT.test(value)) return refuse(s, 'login.pinFormat')
      const accounts = await accountsOfPhone(s, deps)
      const stop = unrecoverable(accounts)
      if (stop !== undefined) return stop
      const open = accounts.filter((account) => !isLocked(account))
      const proven: Account[] = []
      let only: Step | undefined
      for (const account of open) {
        const checked = await checkPin(deps, s, account.customerId, value)
        if ('account' in checked) proven.push(checked.account)
        // One account: said as a login says it (1/3, then the lock), never with its Customer ID.
        else if (open.length === 1 && checked.miss !== 'notCounted') only = checked.stop
      }
      if (proven.length > 0) {
        const app = deps.programmes.of(s.serviceCode).name
        for (const { customerId, phoneNumber } of proven) {
          deps.sms.notify(phoneNumber, { kind: 'customerId', app, customerId, recoveredIn: s.id }, s.language)
        }
        s.recovered = { ids: proven.map((account) => account.customerId), sms: deps.sms.enabled }
        return go('forgotDone')
      }
      if (only !== undefined) return only
      // Several accounts, or a lock or PIN change meanwhile: said as the phone's accounts stand now.
      return unrecoverable(await accountsOfPhone(s, deps)) ?? refuse(s, 'forgot.wrongPin')
    }
  },

  forgotDone: {
    parent: () => 'accountMenu',
    screen: (s, t) => {
      const ids = s.recovered?.ids ?? []
      return {
        lines: [
          ids.length > 1 ? t('forgot.foundMany', { ids: ids.join(', ') }) : t('forgot.found', { id: ids[0] ?? '' }),
          ...(s.recovered?.sms === true ? [t('forgot.smsSent')] : []),
          t('forgot.login')
        ],
        footer: [t('nav.back')]
      }
    },
    input: (value, s) => {
      if (value !== '1') return refuse(s, 'error.invalidChoice')
      const ids = s.recovered?.ids ?? []
      s.recovered = undefined
      if (ids.length !== 1) return go('loginId')
      s.loginId = ids[0]
      return go('loginPin')
    }
  }
} satisfies Record<string, StateDef>
