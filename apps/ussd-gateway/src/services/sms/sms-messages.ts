import type { Language } from '../../db/types.ts'

/**
 * Texts of the SMS the gateway sends, filled like the screens' (menu/i18n.ts `fill`). Plain GSM-7 and
 * one SMS each (160 characters) with the longest values: test/services/sms-messages.test.ts checks both.
 */
const en = {
  customerId: 'Welcome to {app}! Your Customer ID is {id}. You need it with your PIN to log in. ' +
    'Never share your PIN: we never ask for it.',
  temporaryPin: '{app}: your temporary PIN for {id} is {pin}. Within {hours} hours, log in with it and ' +
    'choose a new PIN. Never share it.',
  lockout: '{app}: account {id} is locked for {wait} after 3 incorrect PINs. If this was not you, ' +
    'contact support.',
  registration: '{app}: {one} {serial} is registered to you ({did}), pending verification.'
} as const

export type SmsMessageKey = keyof typeof en

const sw: Record<SmsMessageKey, string> = {
  customerId: 'Karibu {app}! Namba yako ya Mteja ni {id}. Utaihitaji pamoja na PIN kuingia. ' +
    'Usimpe mtu PIN yako: hatutaiomba kamwe.',
  temporaryPin: '{app}: PIN ya muda ya {id} ni {pin}. Ndani ya saa {hours}, ingia nayo na uchague PIN mpya. ' +
    'Usimpe mtu.',
  lockout: '{app}: akaunti {id} imefungwa kwa {wait} baada ya PIN zisizo sahihi mara 3. Kama si wewe, ' +
    'wasiliana na huduma kwa wateja.',
  registration: '{app}: {one} {serial} imesajiliwa kwako ({did}), inasubiri kuthibitishwa.'
}

export const SMS_MESSAGES: Record<Language, Record<SmsMessageKey, string>> = { en, sw }
