import { describe, expect, it } from 'vitest'
import type { Language } from '../../src/db/types.ts'
import { en, type MessageKey } from '../../src/services/menu/messages-en.ts'
import { sw } from '../../src/services/menu/messages-sw.ts'
import { translate } from '../../src/services/menu/i18n.ts'
import { endScreen, pagesOf, STATES } from '../../src/services/menu/machine.ts'
import { MAX_DISPLAY_NAME, MAX_DOMAIN_WORD } from '../../src/schemas/programmes.ts'
import { defaultProgramme, parseProgrammes, type Programme } from '../../src/services/programmes.ts'
import { gsm7Length, isGsm7, MAX_REPLY_CHARS, paginate, plainGsm7, shorten } from '../../src/services/screen.ts'
import type { DomainStatus, DomainView, Session, StateName } from '../../src/services/session.ts'
import { MAX_ANSWER } from '../../src/services/menu/assistant-states.ts'
import { MAX_LISTED } from '../../src/services/menu/domain-states.ts'
import { MAX_RECOVERABLE } from '../../src/services/menu/forgot-states.ts'
import { MAX_LABEL, shortDid } from '../../src/services/menu/platform-access.ts'

const APP = 'Twenty Four Char App Nme'
const SUPPORT = '+999999999999999'
const WORD = { one: 'W'.repeat(MAX_DOMAIN_WORD), many: 'M'.repeat(MAX_DOMAIN_WORD) }

const PROJECT = 'did:ixo:entity:5d8a2c9f0b7e41a3b6c2d9e8f7a6b5c4'
const MENUS = ['myDomains', 'askAssistant', 'registerStove', 'checkStove']

/**
 * Programmes at the schema's limits: the longest name, support line and words, every menu on, with each set
 * of languages.
 */
function longestProgrammes (): Programme[] {
  const entry = {
    name: APP, supportPhone: SUPPORT, domainWord: { en: WORD, sw: WORD }, projectDid: PROJECT, menus: MENUS
  }
  const file = JSON.stringify({
    programmes: {
      '*384#': entry,
      '*500#': { ...entry, languages: ['sw'] },
      '*600#': { ...entry, languages: ['en'] }
    }
  })
  const read = parseProgrammes(file, 'programmes.json')
  if (!read.ok) throw new Error(read.issues.join('\n'))
  return [...read.programmes.values(), defaultProgramme(APP)]
}
const LONGEST = {
  name: 'Wanjiru-Nyambura Achieng Odhiambo Kamaus',
  email: `${'a'.repeat(44)}@example.co.ke`.slice(0, 60),
  phone: '+254712345678901',
  id: 'C1A2B3C4D'
}
const CONTACT = { phone: LONGEST.phone, email: LONGEST.email }
/** As many Customer IDs as a forgotten-id PIN can prove on one phone. */
const RECOVERED = Array.from({ length: MAX_RECOVERABLE }, () => LONGEST.id)
const SERIAL = 'S'.repeat(40)
const DID = 'did:ixo:entity:0123456789abcdef0123456789abcdef'
const STATUSES: DomainStatus[] = [
  'draft', 'verification_submitted', 'verified', 'changed', 'rejected', 'revoked', 'expired', 'deactivated'
]
const domainView = (status: DomainStatus): DomainView =>
  ({ did: DID, label: 'L'.repeat(MAX_LABEL), status, date: '2026-12-31' })
/** The states whose screen shows a domain's status: each status is rendered. */
const STATUS_STATES = new Set<StateName>(['myDomains', 'domainDetail', 'checkResult'])
/** Forgot Customer ID's result shows one id, or all it proved. */
const RECOVERED_STATES = new Set<StateName>(['forgotDone'])
/** An answer as long as kept, of long words so that pages break inside them too. */
const ANSWER = Array.from({ length: 200 }, (_, i) => `answer${i}`).join(' ').slice(0, MAX_ANSWER)
// The longest wait text: minutes up to 90, then hours (at most 720, the longest cool-down allowed).
const LONGEST_WAIT = { key: 'time.minutes', params: { n: 90 } } as const
const LONGEST_SUPPORT = { key: 'support.call', params: { phone: SUPPORT } } as const
const WORST_PARAMS = {
  app: APP,
  name: LONGEST.name,
  id: LONGEST.id,
  n: 160,
  max: 3,
  ...CONTACT,
  wait: LONGEST_WAIT,
  support: LONGEST_SUPPORT,
  ids: RECOVERED.join(', '),
  ...WORD,
  serial: SERIAL
}

const session = (
  state: StateName,
  language: Language,
  flash?: MessageKey,
  authenticated = true,
  status: DomainStatus = 'verification_submitted',
  recovered: string[] = RECOVERED
): Session => ({
  id: 's',
  phone: LONGEST.phone,
  serviceCode: '*384*123#',
  state,
  page: 0,
  language,
  keptText: '',
  message: '',
  startedAt: 0,
  topic: 0,
  recovered: { ids: recovered, sms: true },
  ...(authenticated
    ? {
        customerId: LONGEST.id,
        name: LONGEST.name,
        email: LONGEST.email,
        roles: ['household', 'agent'],
        answer: ANSWER,
        domains: Array.from({ length: MAX_LISTED }, () => domainView(status)),
        domain: domainView(status),
        stove: {
          serial: SERIAL,
          household: { customerId: LONGEST.id, name: LONGEST.name, did: DID },
          did: DID
        }
      }
    : {}),
  ...(flash !== undefined ? { flash: { key: flash, params: WORST_PARAMS } } : {})
})

const KEYS = Object.keys(en) as MessageKey[]
const END_KEYS: MessageKey[] = [
  'main.goodbye', 'login.locked', 'login.lockedNow', 'login.tempPinExpired', 'services.pinReplaced',
  'services.sessionLocked', 'session.expired', 'pin.busy', 'create.phoneTaken', 'platform.unavailable',
  'platform.keyUnavailable', 'ask.unavailable', 'ask.noRoom', 'forgot.noAccount', 'forgot.locked'
]

describe('every screen fits one USSD message in both languages', () => {
  const programmes = longestProgrammes()

  it('renders programmes whose name, support line and words are as long as the schema allows', () => {
    expect(APP).toHaveLength(MAX_DISPLAY_NAME)
    expect(programmes.map((p) => p.name)).toEqual([APP, APP, APP, APP])
    expect(shortDid(DID)).toHaveLength(28)
    const tooLong = parseProgrammes(JSON.stringify({ programmes: { '*384#': { name: `${APP}x` } } }), 'p.json')
    expect(tooLong.ok).toBe(false)
  })

  it('lists every programme menu on a logged-in agent\'s main menu, and none before the login', () => {
    const [programme] = programmes
    const lines = (authenticated: boolean) =>
      pagesOf(session('preMenu', 'en', undefined, authenticated), programme!).flatMap((page) => page.split('\n'))
    expect(lines(true)).toEqual(expect.arrayContaining([
      `4. My ${WORD.many}`, '5. Ask the assistant', `6. Register a ${WORD.one}`, `7. Check a ${WORD.one}`
    ]))
    expect(lines(false).filter((line) => /^[4-7]\. /.test(line))).toEqual([])
  })

  for (const language of ['en', 'sw'] as const) {
    it(`pages every state, with every message above it, within ${MAX_REPLY_CHARS} GSM-7 characters ` +
      `(${language})`, () => {
      let checked = 0
      // Collected and asserted once: an expect per page costs more than rendering it.
      const unfit: string[] = []
      for (const programme of programmes) {
        for (const state of Object.keys(STATES) as StateName[]) {
          for (const flash of [undefined, ...KEYS]) {
            for (const authenticated of [true, false]) {
              // Only Know More's topic screen reads the topic, and only the domain screens a status.
              for (const topic of state === 'knowMoreTopic' ? [0, 1, 2] : [0]) {
                for (const status of STATUS_STATES.has(state) ? STATUSES : [undefined]) {
                  for (const recovered of RECOVERED_STATES.has(state) ? [[LONGEST.id], RECOVERED] : [RECOVERED]) {
                    const s = session(state, language, flash, authenticated, status, recovered)
                    for (const page of pagesOf({ ...s, topic }, programme)) {
                      if (!isGsm7(page) || gsm7Length(`CON ${page}`) > MAX_REPLY_CHARS) unfit.push(page)
                      checked++
                    }
                  }
                }
              }
            }
          }
        }
      }
      expect(unfit.slice(0, 3), `${unfit.length} pages are not GSM-7 or do not fit`).toEqual([])
      expect(checked).toBeGreaterThan(4000)
    }, 30_000) // tens of thousands of renders: CPU-bound, slow on a loaded machine

    it(`fits every END text whole, never cut (${language})`, () => {
      for (const key of END_KEYS) {
        const text = translate(language, key, WORST_PARAMS)
        expect(gsm7Length(`END ${text}`), text).toBeLessThanOrEqual(MAX_REPLY_CHARS)
      }
      const reply = endScreen(session('preMenu', language), 'main.goodbye', defaultProgramme(APP))
      expect(reply).toEqual({ end: true, message: translate(language, 'main.goodbye', { app: APP }) })
    })
  }

  it('translates every key into Kiswahili with the same placeholders', () => {
    for (const key of KEYS) {
      const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort()
      expect(placeholders(sw[key]), key).toEqual(placeholders(en[key]))
      expect(isGsm7(sw[key]) && isGsm7(en[key]), key).toBe(true)
    }
  })
})

describe('paging', () => {
  it('keeps short screens whole and spreads long ones over pages without losing a word', () => {
    expect(paginate({ lines: ['Hello', '1. One'], footer: ['0. Back'] }, '98. More'))
      .toEqual(['Hello\n1. One\n0. Back'])
    const words = Array.from({ length: 90 }, (_, i) => `word${i}`)
    const pages = paginate({ lines: ['Title', words.join(' '), '1. Option'], footer: ['0. Back'] }, '98. More')
    expect(pages.length).toBeGreaterThan(2)
    for (const [index, page] of pages.entries()) {
      expect(gsm7Length(`CON ${page}`)).toBeLessThanOrEqual(MAX_REPLY_CHARS)
      expect(page.endsWith(index < pages.length - 1 ? '\n98. More\n0. Back' : '\n1. Option\n0. Back')).toBe(true)
    }
    const text = pages.map((p) => p.replace(/\n98\. More/, '').replace(/\n0\. Back$/, '')).join(' ').replace(/\n/g, ' ')
    for (const word of words) expect(text.split(' ')).toContain(word)
  })

  it('flows a paragraph on from a message above it, and never splits a menu option', () => {
    const paragraph = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ')
    const lines = ['Invalid choice. Please pick a number from the menu.', paragraph]
    const pages = paginate({ lines, footer: ['0. Back'] }, '98. More')
    expect(pages[0]).toMatch(
      /^Invalid choice\. Please pick a number from the menu\.\nword0 word1 .* word\d+\n98\. More\n0\. Back$/
    )
    const rejoined = pages.join(' ').replace(/\n(98\. More|0\. Back)/g, '').replace(/\n/g, ' ')
    expect(rejoined).toBe(`Invalid choice. Please pick a number from the menu. ${paragraph}`)

    const options = Array.from({ length: 12 }, (_, i) => `${i + 1}. Option number ${i + 1} of the long menu`)
    const menu = paginate({ lines: ['Title', ...options], footer: ['0. Back'] }, '98. More')
    expect(menu.length).toBeGreaterThan(1)
    const shown = menu.flatMap((page) => page.split('\n')).filter((line) => line !== '98. More' && line !== '0. Back')
    expect(shown).toEqual(['Title', ...options])
  })

  it('moves a short line whole to the next page (a label stays with its value) and keeps blank lines', () => {
    const email = `Email: ${'a'.repeat(44)}@example.co.ke`
    const lines = ['Name: Wanjiru-Nyambura Achieng Odhiambo Kamaus', 'x'.repeat(90), '', email]
    const pages = paginate({ lines, footer: ['0. Back'] }, '98. More')
    expect(pages.some((page) => page.split('\n').includes(email))).toBe(true)
    expect(pages.join('\n').split('\n').filter((line) => line === '').length).toBe(1)
  })

  it('makes text from elsewhere plain GSM-7 and shortens it at a word', () => {
    const answer = '**Clean** it weekly \u2014 it\u2019s \u201Ceasy\u201D\u2026\n\n' +
      '# Tips\n\u2022 Caf\u00E9 \u{1F525} cool first'
    expect(plainGsm7(answer)).toBe('Clean it weekly - it\'s "easy"... Tips - Cafe cool first')
    expect(isGsm7(plainGsm7('\u4F60\u597D, \u00FC\u00E7'))).toBe(true)
    expect(shorten('one two three four', 12)).toBe('one two...')
    expect(shorten('short', 12)).toBe('short')
  })

  it('counts GSM-7 extension characters twice and flags non-GSM text', () => {
    expect(gsm7Length('a{b}')).toBe(6)
    expect(isGsm7('Jean-Paul O\'Neil')).toBe(true)
    expect(isGsm7('smart \u2019quote')).toBe(false)
  })
})
