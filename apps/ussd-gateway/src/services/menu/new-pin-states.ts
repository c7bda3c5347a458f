import { updatePinRecord, type Account } from '../../db/accounts.repository.ts'
import { isWeakPin } from '../pin-vault.ts'
import type { Session, StateName } from '../session.ts'
import { go, PIN_FORMAT, refuse, type MachineDeps, type StateDef, type Step } from './types.ts'

/** The account a new PIN is for, or the step that stops the change (locked, logged out, expired). */
export type AccountCheck = (s: Session, deps: MachineDeps) => Promise<{ account: Account } | { stop: Step }>

export interface NewPinOptions<E extends StateName, C extends StateName> {
  /** The two states: the new PIN, then its confirmation. */
  enter: E
  confirm: C
  /** Where `0` leads from the first prompt. */
  parent: StateName
  account: AccountCheck
  /** The step after the new PIN is stored. */
  done: (s: Session, account: Account) => Step
  /** The step when it could not be stored: the account was locked meanwhile. */
  locked: (s: Session, account: Account) => Step
}

/**
 * Choosing a new PIN, typed twice: a PIN change after login, and the change a temporary PIN from
 * support leads to. The new PIN must be 5 digits, not weak and not the current one; the first is
 * kept sealed in the session until the confirmation matches it. The account is checked at both
 * steps, so a lock (or an expired temporary PIN) stops the change.
 */
export function newPinStates<E extends StateName, C extends StateName> (options: NewPinOptions<E, C>): Record<E | C, StateDef> {
  const states: Record<string, StateDef> = {
    [options.enter]: {
      prompt: 'secret',
      parent: () => options.parent,
      screen: (_s, t) => ({ lines: [t('pin.enterNew')], footer: [t('nav.back')] }),
      input: async (value, s, deps) => {
        if (!PIN_FORMAT.test(value)) return refuse(s, 'login.pinFormat')
        if (isWeakPin(value)) return refuse(s, 'create.weakPin')
        const checked = await options.account(s, deps)
        if ('stop' in checked) return checked.stop
        if ((await deps.vault.verify(value, checked.account.pinRecord)).ok) return refuse(s, 'pin.sameAsCurrent')
        s.draftPin = await deps.vault.seal(value)
        return go(options.confirm)
      }
    },
    [options.confirm]: {
      prompt: 'secret',
      parent: () => options.enter,
      screen: (_s, t) => ({ lines: [t('pin.confirmNew')], footer: [t('nav.back')] }),
      input: async (value, s, deps) => {
        if (!PIN_FORMAT.test(value)) return refuse(s, 'login.pinFormat')
        const pinRecord = s.draftPin
        s.draftPin = undefined
        if (pinRecord === undefined) return go(options.enter)
        if (!(await deps.vault.verify(value, pinRecord)).ok) return go(options.enter, 'pin.mismatch')
        const checked = await options.account(s, deps)
        if ('stop' in checked) return checked.stop
        const { account } = checked
        if (!(await updatePinRecord(deps.db, account.customerId, pinRecord, deps.vault.keyId))) return options.locked(s, account)
        return options.done(s, account)
      }
    }
  }
  return states as Record<E | C, StateDef>
}
