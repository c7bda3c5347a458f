import type { Language } from '../../db/types.ts'
import type { MessageKey } from './i18n.ts'
import type { StateName } from '../session.ts'
import { go, refuse, type StateDef } from './types.ts'

const TOPICS = [
  { option: 'info.about', text: 'info.aboutText' },
  { option: 'info.accounts', text: 'info.accountsText' },
  { option: 'info.security', text: 'info.securityText' }
] as const satisfies ReadonlyArray<{ option: MessageKey, text: MessageKey }>

const LANGUAGE_CHOICES: Record<string, Language> = { 1: 'en', 2: 'sw' }

/**
 * The language menu, opened from `from` (the welcome menu, or My Account when logged in): `0` and
 * a choice both return there, so each menu has its own state.
 */
export const languageMenu = (from: StateName): StateDef => ({
  parent: () => from,
  view: (t) => ({
    lines: [t('language.title'), t('language.english'), t('language.swahili')],
    footer: [t('nav.back')]
  }),
  input: async (value, s, deps) => {
    const language = LANGUAGE_CHOICES[value]
    if (language === undefined) return refuse(s, 'error.invalidChoice')
    await deps.saveLanguage(s.phone, language)
    s.language = language
    return go(from, 'language.saved')
  }
})

/** The welcome menu, Know More and the language menu. */
export const mainStates = {
  preMenu: {
    screen: (s, t, app) => ({
      lines: [
        s.customerId !== undefined ? t('main.titleUser', { name: s.name ?? '' }) : t('main.title', { app }),
        t('main.knowMore'),
        t(s.customerId !== undefined ? 'main.myAccount' : 'main.account'),
        t('main.language')
      ],
      footer: [t('nav.exit')]
    }),
    input: (value, s) => {
      if (value === '1') return go('knowMore')
      if (value === '2') return go(s.customerId !== undefined ? 'servicesMenu' : 'accountMenu')
      if (value === '3') return go('language')
      return refuse(s, 'error.invalidChoice')
    }
  },

  knowMore: {
    parent: () => 'preMenu',
    view: (t, app) => ({
      lines: [t('info.title', { app }), ...TOPICS.map((topic) => t(topic.option))],
      footer: [t('nav.back')]
    }),
    input: (value, s) => {
      const index = /^\d$/.test(value) ? Number(value) - 1 : -1
      if (TOPICS[index] === undefined) return refuse(s, 'error.invalidChoice')
      s.topic = index
      return go('knowMoreTopic')
    }
  },

  knowMoreTopic: {
    parent: () => 'knowMore',
    screen: (s, t, app) => ({ lines: [t((TOPICS[s.topic ?? 0] ?? TOPICS[0]).text, { app })], footer: [t('nav.back')] }),
    input: (_value, s) => refuse(s, 'error.invalidChoice')
  },

  language: languageMenu('preMenu')
} satisfies Record<string, StateDef>
