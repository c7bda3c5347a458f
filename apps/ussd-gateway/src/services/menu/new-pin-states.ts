import { changePinRecord, type Account } from '../../db/accounts.repository.ts'
import { UssdPinRecordError } from '../../errors.ts'
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
  /** The step after the new PIN is stored (the session's `pinVersion` is the new one's). */
  done: (s: Session, account: Account) => Step
}

/** Whether `pin` is the one sealed in a kept earlier record; one no configured key opens any more matches nothing. */
async function matchesEarlier (deps: MachineDeps, pin: string, record: string | null): Promise<boolean> {
  if (record === null) return false
  try {
    return (await deps.vault.verify(pin, record)).ok
  } catch (error) {
    if (error instanceof UssdPinRecordError) return false
    throw error
  }
}

/**
 * Choosing a new PIN, typed twice. It may not be the current PIN nor the one a reset replaced (it may
 * have been guessed), and applies only over the PIN version the session proved, so a change elsewhere wins.
 */
export function newPinStates<E extends StateName, C extends StateName> (
  options: NewPinOptions<E, C>
): Record<E | C, StateDef> {
  const states: Record<string, StateDef> = {
    [options.enter]: {
      prompt: 'secret',
      parent: () => options.parent,
      view: (t) => ({ lines: [t('pin.enterNew')], footer: [t('nav.back')] }),
      input: async (value, s, deps) => {
        if (!PIN_FORMAT.test(value)) return refuse(s, 'login.pinFormat')
        if (isWeakPin(value)) return refuse(s, 'create.weakPin')
        const checked = await options.account(s, deps)
        if ('stop' in checked) return checked.stop
        if ((await deps.vault.verify(value, checked.account.pinRecord)).ok) return refuse(s, 'pin.sameAsCurrent')
        if (await matchesEarlier(deps, value, checked.account.previousPinRecord)) return refuse(s, 'pin.sameAsPrevious')
        s.draftPin = await deps.vault.seal(value)
        return go(options.confirm)
      }
    },
    [options.confirm]: {
      prompt: 'secret',
      parent: () => options.enter,
      view: (t) => ({ lines: [t('pin.confirmNew')], footer: [t('nav.back')] }),
      input: async (value, s, deps) => {
        if (!PIN_FORMAT.test(value)) return refuse(s, 'login.pinFormat')
        const pinRecord = s.draftPin
        s.draftPin = undefined
        if (pinRecord === undefined) return go(options.enter)
        if (!(await deps.vault.verify(value, pinRecord)).ok) return go(options.enter, 'pin.mismatch')
        const checked = await options.account(s, deps)
        if ('stop' in checked) return checked.stop
        const { account } = checked
        const version =
          await changePinRecord(deps.db, account.customerId, pinRecord, deps.vault.keyId, account.pinVersion)
        if (version === undefined) {
          // Locked, reset or changed between the check and the write: the check now says which.
          const again = await options.account(s, deps)
          return 'stop' in again ? again.stop : go(options.enter)
        }
        const step = options.done(s, account)
        // After `done`: logging in takes the version the account had when it was read.
        s.pinVersion = version
        return step
      }
    }
  }
  return states as Record<E | C, StateDef>
}
