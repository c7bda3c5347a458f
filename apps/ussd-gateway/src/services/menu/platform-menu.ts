import type { Role } from '../../db/types.ts'
import { MENUS, type MenuName } from '../../schemas/programmes.ts'
import type { Programme } from '../programmes.ts'
import type { Session } from '../session.ts'
import { openAssistant } from './assistant-states.ts'
import { openMyDomains, wordsOf } from './domain-states.ts'
import type { MessageKey, Translator } from './i18n.ts'
import { go, type MachineDeps, type Step } from './types.ts'

/** The main menu's fixed options (Know More, Account, Language); the programme's menus follow them. */
export const FIRST_PLATFORM_OPTION = 4

/** Who sees a menu: households their devices, field agents the registration tools, every account the assistant. */
const FOR: Record<MenuName, Role | 'anyone'> = {
  myDomains: 'household',
  askAssistant: 'anyone',
  registerStove: 'agent',
  checkStove: 'agent'
}

const LABEL: Record<MenuName, MessageKey> = {
  myDomains: 'menu.myDomains',
  askAssistant: 'menu.askAssistant',
  registerStove: 'menu.registerStove',
  checkStove: 'menu.checkStove'
}

/** The programme's menus this logged-in session sees, in menu order (none before a login). */
export function platformMenus (s: Session, programme: Programme): MenuName[] {
  if (s.customerId === undefined) return []
  const roles = s.roles ?? ['household']
  return MENUS.filter((menu) => programme.menus.has(menu) && (FOR[menu] === 'anyone' || roles.includes(FOR[menu])))
}

/** The main menu lines of those menus, numbered after the fixed options. */
export const platformMenuLines = (s: Session, t: Translator, programme: Programme): string[] =>
  platformMenus(s, programme).map((menu, index) =>
    t(LABEL[menu], { n: FIRST_PLATFORM_OPTION + index, ...wordsOf(s, programme) }))

/** The menu picked by its number on the main menu, opened; undefined for a number that is not one of them. */
export async function openPlatformMenu (value: string, s: Session, deps: MachineDeps): Promise<Step | undefined> {
  const index = /^\d{1,2}$/.test(value) ? Number(value) - FIRST_PLATFORM_OPTION : -1
  const menu = index >= 0 ? platformMenus(s, deps.programmes.of(s.serviceCode))[index] : undefined
  switch (menu) {
    case 'myDomains': return await openMyDomains(s, deps)
    case 'askAssistant': return openAssistant(s)
    case 'registerStove': return go('registerSerial')
    case 'checkStove': return go('checkSerial')
    default: return undefined
  }
}

/** Where a login lands: the main menu when it offers the account something of the programme, else My Account. */
export const landing = (s: Session, programme: Programme) =>
  platformMenus(s, programme).length > 0 ? 'preMenu' : 'servicesMenu'
