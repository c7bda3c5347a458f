import { ENTITY_DID_PATTERN, type DomainDocumentFields } from '@impact/schemas'
import type { ReferenceRow } from '../db/domain.repository.ts'
import {
  DomainClassMethodNotAllowedError,
  DomainClassNotFoundError,
  DomainClassNotProtocolError,
  DomainClassNotUsableError,
  DomainLinkMismatchError,
  DomainLinkNotFoundError,
  DomainLinkNotUsableError,
  DomainLinkTypeMismatchError,
  onField
} from '../errors.ts'
import { didMethodOf } from './did-document.ts'
import { isProtocolType } from './entity-types.ts'

/**
 * The checks a class and the typed links pass on every write, and the place in a programme they give a domain
 * (its organisation and project). A class must be usable now: a verified protocol of this registry within its
 * validity, or a DID outside it whose method the configuration allows. A link target must be a domain of this
 * registry that is neither deactivated nor expired, of the type the link expects; it need not be verified yet
 * (a programme registers its devices while its project is under review).
 */

const ENTITY_DID = new RegExp(ENTITY_DID_PATTERN)
type Links = DomainDocumentFields['links']

export interface Placement { parent: string | null, organisation: string | null, project: string | null }
export const NO_PLACEMENT: Placement = { parent: null, organisation: null, project: null }

export const isOrganisationType = (type: string) => type === 'dao' || type.startsWith('dao/')

/** What a parent may be, by the child's type; types not listed may name any domain as parent. */
function parentRule (type: string): { accepts: (parentType: string) => boolean, label: string } | undefined {
  if (type.startsWith('asset/')) {
    return { accepts: (t) => t === 'project' || t === 'asset/collection', label: 'a project or an asset/collection' }
  }
  if (type === 'project' || type.startsWith('dao/')) return { accepts: isOrganisationType, label: 'an organisation' }
  return undefined
}

/** The DIDs a write must look up: the class when it is this registry's, and the link targets. */
export function referencesOf (classDid: string | undefined, links: Links): string[] {
  const dids: string[] = []
  if (classDid !== undefined && ENTITY_DID.test(classDid)) dids.push(classDid)
  if (links?.parent !== undefined) dids.push(links.parent)
  if (links?.organisation !== undefined) dids.push(links.organisation)
  return dids
}

const expired = (row: ReferenceRow, now: Date) => row.valid_until !== null && row.valid_until <= now

export function checkClass (
  classDid: string,
  field: string,
  references: Map<string, ReferenceRow>,
  allowedMethods: Set<string>,
  now: Date
): void {
  if (!ENTITY_DID.test(classDid)) {
    if (allowedMethods.has(didMethodOf(classDid))) return
    const allowed = allowedMethods.size > 0 ? [...allowedMethods].map((m) => `did:${m}`).join(', ') : 'none'
    throw onField(new DomainClassMethodNotAllowedError(classDid, allowed), field,
      `must be a verified protocol of this registry${allowedMethods.size > 0 ? ` or a DID of ${allowed}` : ''}`)
  }
  const row = references.get(classDid)
  if (row === undefined) {
    throw onField(new DomainClassNotFoundError(classDid), field, 'must be a verified protocol of this registry')
  }
  if (!isProtocolType(row.type)) {
    throw onField(new DomainClassNotProtocolError(classDid, row.type), field, 'must be a protocol')
  }
  const state = expired(row, now) || row.status === 'expired'
    ? 'expired'
    : row.status !== 'verified'
      ? row.status
      : row.valid_from !== null && row.valid_from > now ? `not valid before ${row.valid_from.toISOString()}` : undefined
  if (state !== undefined) {
    throw onField(new DomainClassNotUsableError(classDid, state), field, 'must be a verified, active protocol')
  }
}

/** A link target, checked to exist and be live. */
function target (
  link: 'parent' | 'organisation',
  did: string,
  references: Map<string, ReferenceRow>,
  now: Date,
  self: string | undefined
): ReferenceRow {
  const field = `/links/${link}`
  if (did === self) {
    throw onField(new DomainLinkMismatchError(`links.${link} names the domain itself`), field, 'must be another domain')
  }
  const row = references.get(did)
  if (row === undefined) {
    throw onField(new DomainLinkNotFoundError(link, did), field, 'must be a domain of this registry')
  }
  const state = row.status === 'deactivated' ? 'deactivated' : expired(row, now) ? 'expired' : undefined
  if (state !== undefined) {
    throw onField(new DomainLinkNotUsableError(link, did, state), field, 'must be neither deactivated nor expired')
  }
  return row
}

/**
 * Checks the links of a domain of `type` and derives its organisation (links.organisation, else the parent's, or
 * the parent itself when that is an organisation) and project (the parent when a project, else the parent's).
 * `changed` limits the liveness checks to targets the write sets anew (an update keeping a link as it was).
 */
export function placementOf (
  type: string,
  links: Links,
  references: Map<string, ReferenceRow>,
  now: Date,
  options: { self?: string, changed?: (link: 'parent' | 'organisation') => boolean } = {}
): Placement {
  const get = (link: 'parent' | 'organisation', did: string) => options.changed?.(link) === false
    ? references.get(did) ?? target(link, did, references, now, options.self)
    : target(link, did, references, now, options.self)
  let organisation: string | null = null
  if (links?.organisation !== undefined) {
    const row = get('organisation', links.organisation)
    if (!isOrganisationType(row.type)) {
      throw onField(new DomainLinkTypeMismatchError(`links.organisation ${row.did} is a ${row.type}, not an ` +
        'organisation'), '/links/organisation', 'must be an organisation (dao)')
    }
    organisation = row.did
  }
  if (links?.parent === undefined) return { parent: null, organisation, project: null }

  const parent = get('parent', links.parent)
  const rule = parentRule(type)
  if (rule !== undefined && !rule.accepts(parent.type)) {
    throw onField(new DomainLinkTypeMismatchError(`links.parent of a ${type} must be ${rule.label}; ${parent.did} ` +
      `is a ${parent.type}`), '/links/parent', `must be ${rule.label}`)
  }
  const inherited = isOrganisationType(parent.type) ? parent.did : parent.organisation_did
  if (organisation !== null && inherited !== null && organisation !== inherited) {
    throw onField(new DomainLinkMismatchError(`links.organisation ${organisation} differs from the organisation of ` +
      `links.parent (${inherited})`), '/links/organisation', 'must be the parent\'s organisation, or left out')
  }
  return {
    parent: parent.did,
    organisation: organisation ?? inherited,
    project: parent.type === 'project' ? parent.did : parent.project_did
  }
}
