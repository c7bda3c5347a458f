import type { Language } from '../../db/types.ts'
import type { MessageKey } from './i18n.ts'
import type { StateName } from '../session.ts'
import { openPlatformMenu, platformMenuLines } from './platform-menu.ts'
import { go, refuse, type StateDef } from './types.ts'

const TOPICS = [
  { option: 'info.about', text: 'info.aboutText' },
  { option: 'info.accounts', text: 'info.accountsText' },
  { option: 'info.security', text: 'info.securityText' }
] as const satisfies ReadonlyArray<{ option: MessageKey, text: MessageKey }>

const LANGUAGE_CHOICES: Record<string, Language> = { 1: 'en', 2: 'sw' }
const LANGUAGE_OPTIONS = [
  { language: 'en', option: 'language.english' },
  { language: 'sw', option: 'language.swahili' }
] as const satisfies ReadonlyArray<{ language: Language, option: MessageKey }>

/**
 * The language menu, opened from `from` (the welcome menu, or My Account when logged in): `0` and
 * a choice both return there, so each menu has its own state.
 */
export const languageMenu = (from: StateName): StateDef => ({
  parent: () => from,
  // Only the programme's languages, each under its fixed number.
  view: (t, programme) => ({
    lines: [t('language.title'), ...LANGUAGE_OPTIONS.filter((o) => programme.languages.includes(o.language))
      .map((o) => t(o.option))],
    footer: [t('nav.back')]
  }),
  input: async (value, s, deps) => {
    const language = LANGUAGE_CHOICES[value]
    if (language === undefined || !deps.programmes.of(s.serviceCode).languages.includes(language)) {
      return refuse(s, 'error.invalidChoice')
    }
    await deps.saveLanguage(s.phone, language)
    s.language = language
    return go(from, 'language.saved')
  }
})

/** The welcome menu (with the programme's menus once logged in), Know More and the language menu. */
export const mainStates = {
  preMenu: {
    screen: (s, t, programme) => ({
      lines: [
        s.customerId !== undefined
          ? t('main.titleUser', { name: s.name ?? '' })
          : t('main.title', { app: programme.name }),
        t('main.knowMore'),
        t(s.customerId !== undefined ? 'main.myAccount' : 'main.account'),
        t('main.language'),
        ...platformMenuLines(s, t, programme)
      ],
      footer: [t('nav.exit')]
    }),
    input: async (value, s, deps) => {
      if (value === '1') return go('knowMore')
      if (value === '2') return go(s.customerId !== undefined ? 'servicesMenu' : 'accountMenu')
      if (value === '3') return go('language')
      return await openPlatformMenu(value, s, deps) ?? refuse(s, 'error.invalidChoice')
    }
  },

  knowMore: {
    parent: () => 'preMenu',
    view: (t, programme) => ({
      lines: [t('info.title', { app: programme.name }), ...TOPICS.map((topic) => t(topic.option))],
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
    screen: (s, t, programme) => ({
      lines: [t((TOPICS[s.topic ?? 0] ?? TOPICS[0]).text, { app: programme.name })],
      footer: [t('nav.back')]
    }),
    input: (_value, s) => refuse(s, 'error.invalidChoice')
  },

  language: languageMenu('preMenu')
} satisfies Record<string, StateDef>
