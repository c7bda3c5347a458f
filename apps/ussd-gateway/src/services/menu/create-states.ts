import { isUniqueViolation } from '@impact/persistence'
import {
  countAccountsOfPhone,
  findAccountByCreationKey,
  insertAccount,
  type Account
} from '../../db/accounts.repository.ts'
import { generateCustomerId, newCreationKey } from '../customer-id.ts'
import { isWeakPin } from '../pin-vault.ts'
import { isGsm7 } from '../screen.ts'
import type { Session } from '../session.ts'
import { end, go, PIN_FORMAT, refuse, type MachineDeps, type StateDef, type Step } from './types.ts'

const NAME = /^\p{L}[\p{L}' .-]*$/u
const LETTER = /\p{L}/gu
/** Apostrophes a handset or a keyboard may send for `'` (typographic, modifier letter, prime). */
const APOSTROPHES = /[\u2018\u2019\u02BC\u2032]/g
/**
 * A plain address: the local part without a leading, trailing or doubled dot; domain labels of
 * letters, digits and inner hyphens; a top-level domain of letters.
 */
const EMAIL_LOCAL_PART = /(?!\.)(?!.*\.\.)[A-Za-z0-9._%+-]{1,64}(?<!\.)/
const EMAIL_DOMAIN = /(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}/
const EMAIL = new RegExp(`^${EMAIL_LOCAL_PART.source}@${EMAIL_DOMAIN.source}$`)
const MAX_EMAIL = 60
const ID_ATTEMPTS = 5

type CreatedAccount = Pick<Account, 'customerId' | 'phoneNumber' | 'fullName' | 'email' | 'pinVersion' | 'roles'>

/** A display name: at least 2 letters, with spaces, hyphens, apostrophes and dots; at most 40 GSM-7 characters. */
export function normaliseName (input: string): string | undefined {
  const name = input.trim().replace(/\s+/g, ' ').replace(APOSTROPHES, "'")
  const valid = name.length <= 40 && NAME.test(name) && (name.match(LETTER)?.length ?? 0) >= 2 && isGsm7(name)
  return valid ? name : undefined
}

export function normaliseEmail (input: string): string | undefined {
  const email = input.trim()
  return email.length <= MAX_EMAIL && EMAIL.test(email) ? email.toLowerCase() : undefined
}

/**
 * Inserts the account, with a new did:key, under a fresh random id, drawing again on a collision. A retry
 * of a hop that failed after the insert brings the same creation key and gets that account, not a second
 * one; undefined when the phone already has its most accounts.
 */
async function createAccount (
  deps: MachineDeps,
  s: Session,
  pinRecord: string,
  key: string
): Promise<CreatedAccount | undefined> {
  const identity = await deps.keys.create()
  for (let attempt = 1; ; attempt++) {
    const account = {
      customerId: generateCustomerId(),
      phoneNumber: s.phone,
      fullName: s.draftName ?? '',
      email: s.draftEmail ?? null,
      pinRecord,
      pinKeyId: deps.vault.keyId,
      creationKey: key,
      identity
    }
    let outcome
    try {
      outcome = await insertAccount(deps.db, account, deps.accountsPerPhone)
    } catch (error) {
      if (!isUniqueViolation(error) || attempt >= ID_ATTEMPTS) throw error
      continue
    }
    // A new account's first PIN has version 0 and its role household (the columns' defaults).
    if (outcome === 'created') return { ...account, pinVersion: 0, roles: ['household'] }
    if (outcome === 'phoneFull') return undefined
    const created = await findAccountByCreationKey(deps.db, key)
    if (created === undefined) throw new Error('the account of this creation key vanished')
    return created
  }
}

/** The END of a sign-up from a phone that has its most accounts: log in instead, or ask support. */
export const phoneTakenEnd = (s: Session, deps: MachineDeps): Step => {
  const support = deps.programmes.of(s.serviceCode).supportPhone
  return end('create.phoneTaken', {
    support: support === undefined ? { key: 'support.contact' } : { key: 'support.call', params: { phone: support } }
  })
}

/** True when the session's phone may sign up another account. */
export const phoneHasRoom = async (s: Session, deps: MachineDeps): Promise<boolean> =>
  (await countAccountsOfPhone(deps.db, s.phone)) < deps.accountsPerPhone

/** Account creation: name, optional email, PIN twice; the new account is logged in. */
export const createStates = {
  createName: {
    prompt: 'text',
    parent: () => 'accountMenu',
    view: (t) => ({ lines: [t('create.enterName')], footer: [t('nav.back')] }),
    input: (value, s) => {
      const name = normaliseName(value)
      if (name === undefined) return refuse(s, 'create.invalidName')
      s.draftName = name
      return go('createEmail')
    }
  },

  createEmail: {
    prompt: 'text',
    parent: () => 'createName',
    view: (t) => ({ lines: [t('create.enterEmail')], footer: [t('nav.skip'), t('nav.back')] }),
    input: (value, s) => {
      if (value === '00') {
        s.draftEmail = null
        return go('createPin')
      }
      const email = normaliseEmail(value)
      if (email === undefined) return refuse(s, 'create.invalidEmail')
      s.draftEmail = email
      return go('createPin')
    }
  },

  createPin: {
    prompt: 'secret',
    parent: () => 'createEmail',
    view: (t) => ({ lines: [t('create.enterPin')], footer: [t('nav.back')] }),
    input: async (value, s, deps) => {
      if (!PIN_FORMAT.test(value)) return refuse(s, 'login.pinFormat')
      if (isWeakPin(value)) return refuse(s, 'create.weakPin')
      // Held sealed like the stored PIN, never in clear, until the confirmation matches.
      s.draftPin = await deps.vault.seal(value)
      s.creationKey = newCreationKey()
      return go('createPinConfirm')
    }
  },

  createPinConfirm: {
    prompt: 'secret',
    parent: () => 'createPin',
    view: (t) => ({ lines: [t('create.confirmPin')], footer: [t('nav.back')] }),
    input: async (value, s, deps) => {
      if (!PIN_FORMAT.test(value)) return refuse(s, 'login.pinFormat')
      const pinRecord = s.draftPin
      if (pinRecord === undefined || s.draftName === undefined) return go('createName')
      if (!(await deps.vault.verify(value, pinRecord)).ok) {
        s.draftPin = undefined
        return go('createPin', 'create.mismatch')
      }
      // A session from before creation keys has none: its retry is not recognised.
      const account = await createAccount(deps, s, pinRecord, s.creationKey ?? newCreationKey())
      if (account === undefined) return phoneTakenEnd(s, deps)
      const app = deps.programmes.of(s.serviceCode).name
      deps.sms.notify(account.phoneNumber, { kind: 'customerId', app, customerId: account.customerId }, s.language)
      s.customerId = account.customerId
      s.pinVersion = account.pinVersion
      s.name = account.fullName
      s.email = account.email
      s.accountPhone = account.phoneNumber
      s.roles = account.roles
      s.draftName = s.draftEmail = s.draftPin = s.creationKey = undefined
      return go('createDone')
    }
  },

  createDone: {
    parent: () => 'preMenu',
    screen: (s, t) => ({
      lines: [t('create.done', { id: s.customerId ?? '' }), t('create.continue')],
      footer: [t('nav.mainMenu')]
    }),
    input: (value, s) => (value === '1' ? go('servicesMenu') : refuse(s, 'error.invalidChoice'))
  }
} satisfies Record<string, StateDef>
