import { randomBytes } from 'node:crypto'
import type { CreateDomainBody } from '@impact/schemas'
import type { ExternalIdScope, ReferenceRow } from '../db/domain.repository.ts'
import type { NewDomain } from '../db/domain-insert.repository.ts'
import { DomainForbiddenError } from '../errors.ts'
import type { Caller } from './api-keys.ts'
import { checkDocumentFields, documentFieldsOf } from './did-document.ts'
import { checkClass, placementOf, referencesOf } from './placement.ts'
import { assertSameOrganisation } from './tenancy.ts'
import { checkMetadata, checkValidity, classOf, entityTypeOf, toInstant } from './validation.ts'

/** What one registration needs checked and built, shared by POST /v1/domains and the batch. */

// CSPRNG bytes drawn a few KiB at a time: a batch of a thousand would otherwise make a thousand calls.
let pool = Buffer.alloc(0)
let offset = 0

/** A fresh entity DID: 128 bits from the CSPRNG, in the chain's `did:ixo:entity:<32 hex>` form. */
export function newEntityDid (): string {
  if (offset + 16 > pool.length) {
    pool = randomBytes(4096)
    offset = 0
  }
  offset += 16
  return `did:ixo:entity:${pool.toString('hex', offset - 16, offset)}`
}

/** The DIDs a registration's checks read (its class when this registry's, its link targets). */
export const registrationReferences = (body: CreateDomainBody) =>
  referencesOf(body.class ?? body.protocol, body.links)

export interface RegistrationContext {
  caller: Caller
  now: Date
  references: Map<string, ReferenceRow>
  allowedClassMethods: Set<string>
}

/** Checks a registration and builds its row (with a fresh DID); a broken rule throws its coded error. */
export function prepareRegistration (body: CreateDomainBody, context: RegistrationContext): NewDomain {
  const { caller, now, references } = context
  const type = entityTypeOf(body.type)
  const classDid = classOf(body)
  const validFrom = toInstant(body.validFrom ?? null)
  const validUntil = toInstant(body.validUntil ?? null)
  checkValidity(validFrom, validUntil, now, true)
  checkMetadata(body.metadata)
  checkDocumentFields(body)
  checkClass(classDid, body.class !== undefined ? '/class' : '/protocol', references, context.allowedClassMethods, now)
  const placement = placementOf(type, body.links, references, now)
  assertSameOrganisation(caller, placement.organisation, 'The domain\'s place (links.parent, links.organisation)')
  // Flow 3 of the platform: an agent registers for a household, which becomes the controller.
  if (body.onBehalfOf !== undefined && !caller.roles.includes('registrar')) {
    throw new DomainForbiddenError('registrar, to register for another controller')
  }
  return {
    did: newEntityDid(),
    type,
    class: classDid,
    controllers: [...new Set([body.onBehalfOf ?? caller.account, ...(body.controllers ?? [])])],
    metadata: body.metadata ?? {},
    document: documentFieldsOf(body),
    validFrom,
    validUntil,
    createdByKey: caller.keyId,
    createdByAccount: caller.account,
    createdByService: caller.service,
    createdVia: caller.via,
    createdAt: now,
    externalId: body.externalId,
    ...placement
  }
}

export const registrationReason = (domain: NewDomain) => `registered as ${domain.type} of ${domain.class}`

export const externalIdScope = (domain: Pick<NewDomain, 'organisation' | 'type' | 'class'>): ExternalIdScope =>
  ({ organisation: domain.organisation ?? null, type: domain.type, class: domain.class })

/** One string per scope and external id, to find twins inside a batch. */
export const scopeKey = (scope: ExternalIdScope, externalId: string) =>
  JSON.stringify([scope.organisation, scope.organisation !== null ? scope.type : scope.class, externalId])
