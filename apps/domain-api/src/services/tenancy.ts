import type { Kysely } from 'kysely'
import { PRIVATE_METADATA_KEY, type CreateDomainBody, type Domain } from '@impact/schemas'
import { findReviewedDomains } from '../db/tenancy.repository.ts'
import type { DB } from '../db/types.ts'
import { DomainOrganisationForbiddenError } from '../errors.ts'
import type { Caller } from './api-keys.ts'
import { isOrganisationType } from './placement.ts'

// A caller without an organisation keeps the controller rules; only a platform admin sees all private metadata.

export const isPlatformAdmin = (caller: Caller) => caller.organisation === null && caller.roles.includes('admin')

/** The organisation a domain belongs to: its placement, or itself for an organisation outside any other. */
export const tenantOf = (domain: { did: string, type: string, organisation?: string | null | undefined }) =>
  domain.organisation ?? (isOrganisationType(domain.type) ? domain.did : null)

export function assertSameOrganisation (caller: Caller, organisation: string | null, what: string): void {
  if (caller.organisation === null || organisation === null || organisation === caller.organisation) return
  throw new DomainOrganisationForbiddenError(`${what} belongs to organisation ${organisation}; the caller acts for ` +
    `organisation ${caller.organisation}`)
}

/** What a caller of an organisation registers without links belongs to that organisation. */
export function withOrganisation<T extends Pick<CreateDomainBody, 'links'>> (caller: Caller, body: T): T {
  if (caller.organisation === null || body.links?.parent !== undefined || body.links?.organisation !== undefined) {
    return body
  }
  return { ...body, links: { ...body.links, organisation: caller.organisation } }
}

const hasPrivate = (domain: Domain) => Object.hasOwn(domain.metadata, PRIVATE_METADATA_KEY)

function publicView (domain: Domain): Domain {
  const { [PRIVATE_METADATA_KEY]: _private, ...metadata } = domain.metadata
  return { ...domain, metadata }
}

// Another organisation's controller or registrant is refused: it could not change the domain either.
function mayReadPrivate (caller: Caller, domain: Domain): boolean {
  if (isPlatformAdmin(caller) || caller.roles.includes('compliance')) return true
  const tenant = tenantOf(domain)
  if (caller.organisation !== null && tenant !== null && tenant !== caller.organisation) return false
  if (caller.organisation !== null && tenant === caller.organisation) return true
  return domain.controllers.includes(caller.account) || domain.createdBy.account === caller.account
}

export function createPrivacy (db: Kysely<DB>) {
  async function visible (caller: Caller, domains: Domain[]): Promise<Domain[]> {
    const withheld = domains.filter((domain) => hasPrivate(domain) && !mayReadPrivate(caller, domain))
    if (withheld.length === 0) return domains
    // The voters and vetoers of a domain's proposals review its private metadata too.
    const reviewed = await findReviewedDomains(db, caller.account, withheld.map((domain) => domain.did))
    const hidden = new Set(withheld.filter((domain) => !reviewed.has(domain.did)))
    return domains.map((domain) => (hidden.has(domain) ? publicView(domain) : domain))
  }

  return {
    visible,
    async one (caller: Caller, domain: Domain): Promise<Domain> {
      return (await visible(caller, [domain]))[0] ?? domain
    }
  }
}

export type Privacy = ReturnType<typeof createPrivacy>
