import type { PlatformClient } from '@impact/platform-client'
import type { Programme } from '../programmes.ts'
import type { Screen } from '../screen.ts'
import type { DomainView, Session } from '../session.ts'
import type { MessageKey, Translator } from './i18n.ts'
import { shortDid, viewOf, withRegistry } from './platform-access.ts'
import { go, refuse, type MachineDeps, type StateDef, type Step } from './types.ts'

/** Domains listed in My stoves: the newest ones, so the list stays a few pages long. */
export const MAX_LISTED = 20

const STATUS: Record<DomainView['status'], { word: MessageKey, about: MessageKey }> = {
  draft: { word: 'status.draft', about: 'domain.about.draft' },
  verification_submitted: { word: 'status.verification_submitted', about: 'domain.about.verification_submitted' },
  verified: { word: 'status.verified', about: 'domain.about.verified' },
  changed: { word: 'status.changed', about: 'domain.about.changed' },
  rejected: { word: 'status.rejected', about: 'domain.about.rejected' },
  revoked: { word: 'status.revoked', about: 'domain.about.revoked' },
  expired: { word: 'status.expired', about: 'domain.about.expired' },
  deactivated: { word: 'status.deactivated', about: 'domain.about.deactivated' }
}
const statusOf = (view: DomainView) => STATUS[view.status] ?? STATUS.draft

/** A serial as typed on a keypad: spaces dropped, upper case; 3-40 of letters, digits, `-`, `.` and `/`. */
export function normaliseSerial (value: string): string | undefined {
  const serial = value.replace(/\s+/g, '').toUpperCase()
  return /^[A-Z0-9][A-Z0-9./-]{2,39}$/.test(serial) ? serial : undefined
}

/** The programme's word for its domains, in the session's language. */
export const wordsOf = (s: Session, programme: Programme) => programme.domainWord[s.language]

/** The details of one domain: label, short DID, status and what the status means. */
function detailScreen (s: Session, t: Translator): Screen {
  const view = s.domain
  if (view === undefined) return { lines: [], footer: [t('nav.back')] }
  const { word, about } = statusOf(view)
  return {
    lines: [
      ...t('domain.details', { label: view.label, did: shortDid(view.did), status: { key: word } }).split('\n'),
      t(about, { date: view.date ?? '-' })
    ],
    footer: [t('nav.back')]
  }
}

/** What the gateway registers devices as (the registry's spelling of Asset). */
export const DEVICE_TYPE = 'asset/device'

/**
 * The devices registered under `serial` where the registry keeps serials unique: per type within the organisation
 * of the programme's project, else per class among domains outside any organisation. A programme with neither a
 * project nor a device class looks across the registry.
 */
export async function findBySerial (
  registry: PlatformClient,
  programme: Programme,
  deps: MachineDeps,
  serial: string
) {
  if (programme.projectDid === undefined && programme.deviceClass === undefined) {
    return (await registry.searchDomains({ externalId: serial })).items
  }
  const scope = await deps.platform.deviceScope(programme, registry)
  if (scope.organisation !== null) {
    const { organisation } = scope
    return (await registry.searchDomains({ externalId: serial, organisation, type: DEVICE_TYPE })).items
  }
  const page = await registry.searchDomains({ externalId: serial, protocol: scope.class })
  return page.items.filter((domain) => domain.organisation === null)
}

export interface SerialEntry {
  serial: string
  programme: Programme
  registry: PlatformClient
  roles: readonly string[]
}

/** A screen asking a device's serial; a well-formed one goes to `then`, acting as the account. */
export function serialPrompt (
  context: string,
  then: (entry: SerialEntry, s: Session, deps: MachineDeps) => Promise<Step>
): StateDef {
  return {
    prompt: 'text',
    parent: () => 'preMenu',
    screen: (s, t, programme) => ({ lines: [t('stove.enterSerial', wordsOf(s, programme))], footer: [t('nav.back')] }),
    input: async (value, s, deps) => {
      const serial = normaliseSerial(value)
      if (serial === undefined) return refuse(s, 'stove.invalidSerial')
      const programme = deps.programmes.of(s.serviceCode)
      return await withRegistry(s, deps, context, async (registry, _did, roles) =>
        await then({ serial, programme, registry, roles }, s, deps))
    }
  }
}

/** Opens My stoves: the domains the account controls, newest first, fetched as the account. */
export async function openMyDomains (s: Session, deps: MachineDeps): Promise<Step> {
  return await withRegistry(s, deps, 'list', async (registry, did) => {
    const page = await registry.searchDomains({ controller: did, limit: MAX_LISTED })
    s.domains = page.items.map(viewOf)
    return go('myDomains')
  })
}

/** My stoves and Check a stove: what the account controls, or one device by its serial. */
export const domainStates = {
  myDomains: {
    parent: () => 'preMenu',
    screen: (s, t, programme) => {
      const { many } = wordsOf(s, programme)
      const domains = s.domains ?? []
      const lines = domains.map((view, index) =>
        t('domains.line', { n: index + 1, label: view.label, status: { key: statusOf(view).word } }))
      return {
        lines: [
          t('domains.title', { many }),
          ...(lines.length > 0 ? lines : [t('domains.none', { many })]),
          ...(domains.length >= MAX_LISTED ? [t('domains.newest', { n: MAX_LISTED })] : [])
        ],
        footer: [t('nav.back')]
      }
    },
    input: async (value, s, deps) => {
      const picked = /^\d{1,2}$/.test(value) ? s.domains?.[Number(value) - 1] : undefined
      if (picked === undefined) return refuse(s, 'error.invalidChoice')
      return await withRegistry(s, deps, 'read', async (registry) => {
        s.domain = viewOf(await registry.getDomain(picked.did))
        return go('domainDetail')
      })
    }
  },

  domainDetail: {
    parent: () => 'myDomains',
    screen: (s, t) => detailScreen(s, t),
    input: (_value, s) => refuse(s, 'error.invalidChoice')
  },

  checkSerial: serialPrompt('check', async ({ serial, programme, registry }, s, deps) => {
    const [found] = await findBySerial(registry, programme, deps, serial)
    if (found === undefined) return refuse(s, 'check.notFound', { ...wordsOf(s, programme), serial })
    s.domain = viewOf(found)
    return go('checkResult')
  }),

  checkResult: {
    parent: () => 'checkSerial',
    screen: (s, t) => detailScreen(s, t),
    input: (_value, s) => refuse(s, 'error.invalidChoice')
  }
} satisfies Record<string, StateDef>
