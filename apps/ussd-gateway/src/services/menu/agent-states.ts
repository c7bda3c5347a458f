import { randomUUID } from 'node:crypto'
import { isPlatformClientError } from '@impact/platform-client'
import { findAccount, findAccountsOfPhone, type Account } from '../../db/accounts.repository.ts'
import { normalisePhone, PHONE_INPUT_PATTERN } from '../../schemas/ussd.ts'
import { normaliseCustomerId } from '../customer-id.ts'
import type { Session } from '../session.ts'
import { findBySerial, serialPrompt, wordsOf } from './domain-states.ts'
import { registryFailure, shortDid, withRegistry } from './platform-access.ts'
import { go, refuse, type MachineDeps, type StateDef, type Step } from './types.ts'

const PHONE = new RegExp(PHONE_INPUT_PATTERN)

/** The household an agent named by Customer ID or phone number, or the reason it cannot be used. */
async function householdOf (value: string, s: Session, deps: MachineDeps): Promise<Account | Step> {
  const id = normaliseCustomerId(value)
  let account: Account | undefined
  if (id !== undefined) {
    account = await findAccount(deps.db, id)
  } else {
    const phone = value.replace(/[\s-]+/g, '')
    if (!PHONE.test(phone)) return refuse(s, 'register.invalidHousehold')
    const accounts = await findAccountsOfPhone(deps.db, normalisePhone(phone), 2)
    if (accounts.length > 1) return refuse(s, 'register.manyAccounts')
    account = accounts[0]
  }
  if (account === undefined) return refuse(s, 'register.householdNotFound')
  // An account from before identities gets its DID at its next login.
  if (account.did === null) return refuse(s, 'register.noIdentity', wordsOf(s, deps.programmes.of(s.serviceCode)))
  return account
}

/** Only field agents register devices: the role is read again from the account when acting. */
const notAgent = (roles: readonly string[]): boolean => !roles.includes('agent')

/** A field agent's Register a stove: serial, household, confirm; the registry records both DIDs. */
export const agentStates = {
  registerSerial: serialPrompt('serial check', async ({ serial, programme, registry, roles }, s, deps) => {
    if (notAgent(roles)) return go('preMenu', 'register.notAllowed', wordsOf(s, programme))
    // Said now rather than after the household is typed; the registry refuses a twin anyway.
    const [registered] = await findBySerial(registry, programme, deps, serial)
    if (registered !== undefined) return refuse(s, 'register.duplicate', { serial })
    s.stove = { serial }
    return go('registerHousehold')
  }),

  registerHousehold: {
    prompt: 'text',
    parent: () => 'registerSerial',
    view: (t) => ({ lines: [t('register.enterHousehold')], footer: [t('nav.back')] }),
    input: async (value, s, deps) => {
      if (s.stove === undefined) return go('registerSerial')
      const household = await householdOf(value, s, deps)
      if (!('customerId' in household)) return household
      s.stove = {
        serial: s.stove.serial,
        household: {
          customerId: household.customerId,
          name: household.fullName,
          did: household.did ?? '',
          phone: household.phoneNumber
        },
        key: randomUUID()
      }
      return go('registerConfirm')
    }
  },

  registerConfirm: {
    parent: () => 'registerHousehold',
    screen: (s, t, programme) => ({
      lines: [
        t('register.confirm', {
          ...wordsOf(s, programme),
          serial: s.stove?.serial ?? '',
          name: s.stove?.household?.name ?? '',
          id: s.stove?.household?.customerId ?? ''
        }),
        t('register.confirmOption')
      ],
      footer: [t('nav.back')]
    }),
    input: async (value, s, deps) => {
      if (value !== '1') return refuse(s, 'error.invalidChoice')
      const stove = s.stove
      const household = stove?.household
      if (stove === undefined || household === undefined) return go('registerSerial')
      const programme = deps.programmes.of(s.serviceCode)
      const { projectDid } = programme
      if (projectDid === undefined) return go('preMenu', 'register.notAllowed', wordsOf(s, programme))
      return await withRegistry(s, deps, 'registration', async (registry, _did, roles) => {
        if (notAgent(roles)) return go('preMenu', 'register.notAllowed', wordsOf(s, programme))
        try {
          const domain = await registry.registerDomain({
            type: 'Asset',
            class: await deps.platform.deviceClass(programme, registry),
            externalId: stove.serial,
            onBehalfOf: household.did,
            links: { parent: projectDid },
            metadata: { name: `${programme.domainWord.en.one} ${stove.serial}`, programme: programme.name }
          }, stove.key !== undefined ? { idempotencyKey: stove.key } : {})
          s.stove = { ...stove, did: domain.did, key: undefined }
          // The household learns of it on its own phone, in the language chosen there.
          if (household.phone !== undefined) {
            const one = { en: programme.domainWord.en.one, sw: programme.domainWord.sw.one }
            deps.sms.notify(household.phone, {
              kind: 'registration', app: programme.name, one, serial: stove.serial, did: shortDid(domain.did)
            })
          }
          return go('registerDone')
        } catch (error) {
          if (!isPlatformClientError(error)) throw error
          if (error.code === 'DOMAIN_EXTERNAL_ID_TAKEN') {
            return go('registerSerial', 'register.duplicate', { serial: stove.serial })
          }
          // The agent's DID lacks domain-api's registrar role: an operator grants it (README).
          if (error.code === 'DOMAIN_FORBIDDEN') {
            deps.platform.report(error, { customerId: s.customerId }, 'agent lacks the registrar role')
            return go('preMenu', 'register.notAllowed', wordsOf(s, programme))
          }
          return registryFailure(error, s, deps, 'registration')
        }
      })
    }
  },

  registerDone: {
    parent: () => 'preMenu',
    screen: (s, t, programme) => ({
      lines: [
        ...t('register.done', {
          ...wordsOf(s, programme),
          serial: s.stove?.serial ?? '',
          did: shortDid(s.stove?.did ?? '')
        }).split('\n'),
        t('register.another')
      ],
      footer: [t('nav.mainMenu')]
    }),
    input: (value, s) => {
      if (value !== '1') return refuse(s, 'error.invalidChoice')
      s.stove = undefined
      return go('registerSerial')
    }
  }
} satisfies Record<string, StateDef>
