import UssdMenu from 'ussd-builder'
import { translate } from '../../apps/ussd-gateway/src/services/menu/i18n.ts'
import type { MessageKey } from '../../apps/ussd-gateway/src/services/menu/messages-en.ts'

const APP = 'Impact Platform'
const t = (key: MessageKey) => translate('en', key, { app: APP })
const screen = (...keys: MessageKey[]) => keys.map(t).join('\n')

/**
 * The gateway's menu tree written for ussd-builder, the peer package: same states, texts and links
 * (numbered options, 0 back, 00 skip, name and email patterns). ussd-builder is stateless: every
 * request resolves the whole cumulative text from the start state again.
 */
const STATES: Record<string, { text: string, next?: Record<string, string>, end?: boolean }> = {
  __start__: { text: screen('main.title', 'main.knowMore', 'main.account', 'main.language', 'nav.exit'), next: { 1: 'knowMore', 2: 'accountMenu', 3: 'language' } },
  knowMore: { text: screen('info.title', 'info.about', 'info.accounts', 'info.security', 'nav.back'), next: { 0: '__start__', 1: 'topicAbout', 2: 'topicAccounts', 3: 'topicSecurity' } },
  topicAbout: { text: `${t('info.aboutText').slice(0, 150)}\n${t('nav.more')}\n${t('nav.back')}`, next: { 0: 'knowMore' } },
  topicAccounts: { text: `${t('info.accountsText').slice(0, 150)}\n${t('nav.more')}\n${t('nav.back')}`, next: { 0: 'knowMore' } },
  topicSecurity: { text: `${t('info.securityText').slice(0, 150)}\n${t('nav.more')}\n${t('nav.back')}`, next: { 0: 'knowMore' } },
  language: { text: screen('language.title', 'language.english', 'language.swahili', 'nav.back'), next: { 0: '__start__', 1: '__start__', 2: '__start__' } },
  accountMenu: { text: screen('account.title', 'account.login', 'account.create', 'nav.back'), next: { 0: '__start__', 1: 'loginId', 2: 'createName' } },
  loginId: { text: screen('login.enterId', 'nav.back'), next: { 0: 'accountMenu', '*^C[0-9A-Fa-f]{8}$': 'loginPin' } },
  loginPin: { text: screen('login.enterPin', 'nav.back'), next: { 0: 'loginId' } },
  createName: { text: screen('create.enterName', 'nav.back'), next: { 0: 'accountMenu', '*^[A-Za-z][A-Za-z\' .-]{1,39}$': 'createEmail' } },
  createEmail: { text: screen('create.enterEmail', 'nav.skip', 'nav.back'), next: { 0: 'createName', '00': 'createPin', '*^[^@\\s]+@[^@\\s]+\\.[A-Za-z]{2,}$': 'createPin' } },
  createPin: { text: screen('create.enterPin', 'nav.back'), next: { 0: 'createEmail', '*^\\d{5}$': 'createPinConfirm' } },
  createPinConfirm: { text: screen('create.confirmPin', 'nav.back'), next: { 0: 'createPin' } }
}

/**
 * A fresh menu. A shared UssdMenu keeps each request's fields (`args`, `val`, the pending
 * `resolve`) on the instance until its route resolves: safe only while every state answers
 * synchronously and no connection pipelines requests (two requests parsed from one read both
 * start before either resolves). A real menu has asynchronous states.
 */
export function peerMenu (): UssdMenu {
  const menu = new UssdMenu()
  for (const [name, state] of Object.entries(STATES)) {
    menu.state(name, {
      run: () => { menu.con(state.text) },
      ...(state.next !== undefined ? { next: state.next } : {})
    })
  }
  return menu
}

/** The request fields ussd-builder reads (the aggregator's form body). */
export type PeerArgs = Parameters<UssdMenu['run']>[0]

/**
 * ussd-builder at its fastest while still correct: menus are built once and reused, one per
 * request in flight (a free list), so no request pays for building the tree and none shares an
 * instance with another.
 */
export function peerMenuPool () {
  const idle: UssdMenu[] = []
  return async function run (args: PeerArgs): Promise<string> {
    const menu = idle.pop() ?? peerMenu()
    try {
      return await menu.run(args)
    } finally {
      idle.push(menu)
    }
  }
}
