import type { Kysely, Transaction } from 'kysely'
import { inTransaction, isUniqueViolation } from '@impact/persistence'
import {
  describeScope,
  findDidByExternalId,
  findDomain,
  findIdempotencyClaim,
  findReferences,
  hasChildren,
  listDomains,
  updateDomain,
  type DomainChanges,
  type DomainWithProposal
} from '../db/domain.repository.ts'
import type { NewDomain } from '../db/domain-insert.repository.ts'
import { insertEvents, listEvents } from '../db/event.repository.ts'
import { findProposal, updateProposal } from '../db/proposal.repository.ts'
import { recordVersions } from '../db/version.repository.ts'
import type { DB, DomainRow } from '../db/types.ts'
import {
  DomainExternalIdTakenError,
  DomainIdempotencyMismatchError,
  DomainNotControllerError,
  DomainNotFoundError,
  DomainStateConflictError,
  invalid
} from '../errors.ts'
import {
  type CreateDomainBody, type Domain, type DomainDocumentFields, type DomainEvent, type ListDomainsQuery,
  type UpdateDomainBody
} from '@impact/schemas'
import { principalOf, type Caller } from './api-keys.ts'
import type { Clock } from './clock.ts'
import { createInsertBatcher } from './create-batcher.ts'
import { fingerprint } from './fingerprint.ts'
import { isCollection, withdrawFromCollection } from './collections.ts'
import { callerEvent, isDue, lockAndSettle, settleCollectionOf, settleDomain, settleDue } from './lifecycle.ts'
import { decodeDomainCursor, decodeSequence, toPage } from './pagination.ts'
import { placementOf, referencesOf } from './placement.ts'
import { createReferenceLoader } from './reference-loader.ts'
import { draftRow, toDomain, toEvent, withProposal } from './records.ts'
import { checkDocumentFields, documentFieldsOf } from './did-document.ts'
import { reviewEdit } from './review.ts'
import { contentChanges, hashContent, reviewedContent } from './snapshot.ts'
import {
  externalIdScope, newEntityDid, prepareRegistration, registrationReason, registrationReferences
} from './registration.ts'
import { assertSameOrganisation, createPrivacy, tenantOf, withOrganisation } from './tenancy.ts'
import { checkMetadata, checkValidity, classOf, entityTypeOf, toInstant } from './validation.ts'

type DomainSort = Pick<ListDomainsQuery, 'sort' | 'order'>
/** Positions in listings (domains in the order asked for, history entries in order); cursors encode them. */
export const domainPosition = (order: DomainSort = { sort: 'createdAt', order: 'desc' }) =>
  (domain: Pick<Domain, 'createdAt' | 'updatedAt' | 'did'>) => {
    const at = order.sort === 'updatedAt' ? domain.updatedAt : domain.createdAt
    // The default order keeps the cursors it always had; another order is named so its cursor fits no other.
    return order.sort === 'createdAt' && order.order === 'desc'
      ? [at, domain.did]
      : [at, domain.did, `${order.sort}:${order.order}`]
  }
type Links = DomainDocumentFields['links']
export const eventPosition = (entry: Pick<DomainEvent, 'id'>) => [entry.id]

export interface CreateResult { domain: Domain, replayed: boolean }

export { newEntityDid }

export function createDomainService ({ db, clock, idempotencyTtlMs, allowedClassMethods = new Set(['ixo']) }: {
  db: Kysely<DB>
  clock: Clock
  idempotencyTtlMs: number
  /** DID methods a class outside this registry may have (DOMAIN_EXTERNAL_CLASS_METHODS; default ixo). */
  allowedClassMethods?: Set<string>
}) {
  const batcher = createInsertBatcher(db, idempotencyTtlMs)
  const references = createReferenceLoader(db)
  const privacy = createPrivacy(db)

  /** Reads a domain, settling first what is due (the lazy half of expiry and vote deadlines). */
  async function readSettled (did: string, now: Date): Promise<DomainWithProposal> {
    let row = await findDomain(db, did)
    if (row !== undefined && isDue(row, { status: row.p_status, deadline: row.p_deadline }, now)) {
      await settleDomain(db, did, now)
      row = await findDomain(db, did)
    }
    if (row === undefined) throw new DomainNotFoundError(did)
    return row
  }

  /**
   * The placement columns after new links, checked as on registration. A domain other domains name as parent
   * keeps its links: its children's organisation and project derive from them (and no cycle can form).
   */
  async function relink (caller: Caller, trx: Transaction<DB>, domain: DomainRow, links: Links, now: Date) {
    const before = (domain.document as DomainDocumentFields).links ?? {}
    const changed = (link: 'parent' | 'organisation') => links?.[link] !== before[link]
    if ((changed('parent') || changed('organisation')) && await hasChildren(trx, domain.did)) {
      throw new DomainStateConflictError(`Other domains name ${domain.did} as their parent: its links.parent and ` +
        'links.organisation stay as they are')
    }
    const references = await findReferences(trx, referencesOf(undefined, links), { lock: true })
    const placement = placementOf(domain.type, links, references, now, { self: domain.did, changed })
    assertSameOrganisation(caller, tenantOf({ ...domain, organisation: placement.organisation }),
      `The new links.organisation of ${domain.did}`)
    return { parent_did: placement.parent, organisation_did: placement.organisation, project_did: placement.project }
  }

  /** A caller of another organisation is refused first, whatever its roles; then only controllers and admins. */
  function assertController (caller: Caller, domain: DomainRow) {
    assertSameOrganisation(caller, tenantOf({ ...domain, organisation: domain.organisation_did }),
      `Domain ${domain.did}`)
    if (!caller.roles.includes('admin') && !domain.controllers.includes(caller.account)) {
      throw new DomainNotControllerError(domain.did)
    }
  }

  return {
    readSettled,
    privacy,

    async create (caller: Caller, sent: CreateDomainBody, idempotencyKey?: string): Promise<CreateResult> {
      const now = clock()
      const requestFingerprint = idempotencyKey !== undefined ? fingerprint(sent) : ''
      const body = withOrganisation(caller, sent)
      let prepared: NewDomain
      try {
        // Cheap checks first: a malformed body costs no query.
        entityTypeOf(body.type)
        classOf(body)
        const read = await references.load(registrationReferences(body))
        prepared = prepareRegistration(body, { caller, now, references: read, allowedClassMethods })
      } catch (error) {
        // A retry whose first attempt was registered replays it, even if its class or links changed since.
        const previous = idempotencyKey !== undefined
          ? await findIdempotencyClaim(db, principalOf(caller), idempotencyKey)
          : undefined
        if (previous === undefined || previous.created_at.getTime() <= now.getTime() - idempotencyTtlMs) throw error
        if (previous.fingerprint !== requestFingerprint) throw new DomainIdempotencyMismatchError()
        return { domain: previous.response as Domain, replayed: true }
      }

      for (let attempt = 1; attempt <= 3; attempt++) {
        const draft = attempt === 1 ? prepared : { ...prepared, did: newEntityDid() }
        const domain = toDomain(draftRow(draft), now)
        const claim = idempotencyKey === undefined
          ? undefined
          : { apiKeyId: principalOf(caller), key: idempotencyKey, fingerprint: requestFingerprint, response: domain }
        try {
          if (await batcher.insert({ domain: draft, reason: registrationReason(draft), claim })) {
            return { domain, replayed: false }
          }
        } catch (error) {
          if (!isUniqueViolation(error)) throw error
          // The other unique key: the external id is taken in its scope (a device registered twice).
          const scope = externalIdScope(draft)
          const holder = body.externalId !== undefined
            ? await findDidByExternalId(db, scope, body.externalId)
            : undefined
          if (holder !== undefined) throw new DomainExternalIdTakenError(describeScope(scope), body.externalId, holder)
          // 128 random bits do not collide in practice; if they ever do, draw again.
          if (attempt < 3) continue
          throw error
        }
        const previous = claim !== undefined ? await findIdempotencyClaim(db, claim.apiKeyId, claim.key) : undefined
        if (previous === undefined) continue // the earlier holder of the key expired meanwhile: try again
        if (previous.fingerprint !== requestFingerprint) throw new DomainIdempotencyMismatchError()
        return { domain: previous.response as Domain, replayed: true }
      }
      throw new Error('could not register the domain after 3 attempts')
    },

    async get (caller: Caller, did: string): Promise<Domain> {
      const now = clock()
      return await privacy.one(caller, toDomain(await readSettled(did, now), now))
    },

    async list (caller: Caller, query: ListDomainsQuery) {
      const now = clock()
      const order = { sort: query.sort ?? 'createdAt', order: query.order ?? 'desc' } as const
      const after = decodeDomainCursor(query.cursor, domainPosition(order))
      const type = query.type !== undefined ? entityTypeOf(query.type, '/type') : undefined
      if (query.protocol !== undefined && query.class !== undefined && query.protocol !== query.class) {
        throw invalid('class and protocol filter the same field; send one, or both equal', [
          { field: '/protocol', message: 'must equal class' }
        ])
      }
      const updatedSince = query.updatedSince !== undefined ? new Date(query.updatedSince) : undefined
      // REST checks the format; GraphQL's DateTime arrives as sent.
      if (updatedSince !== undefined && Number.isNaN(updatedSince.getTime())) {
        throw invalid('updatedSince must be an RFC 3339 timestamp', [
          { field: '/updatedSince', message: 'must be an RFC 3339 timestamp' }
        ])
      }
      // Listings filter on stored statuses, so record what became due first (a bounded amount:
      // a backlog is the sweep's job, and the mapping derives the status from the clock anyway).
      await settleDue(db, now, { maxBatches: 1 })
      const rows = await listDomains(db, {
        type,
        class: query.protocol ?? query.class,
        status: query.status,
        controller: query.controller,
        externalId: query.externalId,
        externalIdPrefix: query.externalIdPrefix,
        organisation: query.organisation,
        project: query.project,
        usable: query.usable,
        updatedSince
      }, { ...order, after }, now, query.limit + 1)
      const page = toPage(rows.map((row) => toDomain(row, now)), query.limit, (domain) => domain, domainPosition(order))
      return { ...page, items: await privacy.visible(caller, page.items) }
    },

    /**
     * Changes a domain. A change to the reviewed content (snapshot.ts) of a verified domain makes it `changed`, not
     * usable until a new verification passes; one while a proposal is open supersedes that proposal, whose
     * snapshot no longer matches. A new validUntil renews an expired domain to draft.
     */
    async update (caller: Caller, did: string, body: UpdateDomainBody): Promise<Domain> {
      const now = clock()
      checkMetadata(body.metadata)
      await settleCollectionOf(db, did, now)
      const result = await inTransaction(db, async (trx) => {
        const locked = await lockAndSettle(trx, did, now)
        if (locked === undefined) throw new DomainNotFoundError(did)
        const { domain } = locked
        assertController(caller, domain)
        if (domain.status === 'deactivated') throw new DomainStateConflictError(`Domain ${did} is deactivated`)
        const validFrom = body.validFrom !== undefined ? toInstant(body.validFrom) : domain.valid_from
        const validUntil = body.validUntil !== undefined ? toInstant(body.validUntil) : domain.valid_until
        checkValidity(validFrom, validUntil, now, body.validUntil !== undefined)
        const changes: DomainChanges = { updated_at: now }
        if (body.metadata !== undefined) changes.metadata = body.metadata
        if (body.validFrom !== undefined) changes.valid_from = validFrom
        if (body.validUntil !== undefined) changes.valid_until = validUntil
        if (body.controllers !== undefined) changes.controllers = body.controllers
        const documentChanges = documentFieldsOf(body)
        const documentChanged = Object.keys(documentChanges)
        let document = domain.document
        if (documentChanged.length > 0) {
          // Checked merged: a new service may not take the fragment of a key it leaves in place.
          document = { ...domain.document, ...documentChanges }
          checkDocumentFields(document)
          changes.document = JSON.stringify(document)
        }
        if (body.links !== undefined) Object.assign(changes, await relink(caller, trx, domain, body.links, now))
        const before = reviewedContent(domain)
        const after = reviewedContent({
          ...domain,
          metadata: body.metadata ?? domain.metadata,
          valid_from: validFrom,
          valid_until: validUntil,
          controllers: body.controllers ?? domain.controllers,
          document
        })
        const review = await reviewEdit(trx, domain, locked.proposal, contentChanges(before, after), {
          validUntilSent: body.validUntil !== undefined, contentHash: hashContent(after), at: now
        })
        Object.assign(changes, review.changes)
        const updated = await updateDomain(trx, did, changes).catch(async (error: unknown) => {
          // A new organisation may already hold a domain of this type under the same external id.
          if (!isUniqueViolation(error) || domain.external_id === null) throw error
          const scope = { organisation: changes.organisation_did ?? null, type: domain.type, class: domain.class }
          const holder = await findDidByExternalId(db, scope, domain.external_id)
          throw new DomainExternalIdTakenError(describeScope(scope), domain.external_id, holder ?? 'another domain')
        })
        const { superseded } = review
        const sent = [
          ...(['metadata', 'validFrom', 'validUntil'] as const).filter((f) => body[f] !== undefined),
          ...(body.controllers !== undefined ? ['controllers'] : []),
          ...documentChanged
        ]
        await insertEvents(trx, [
          callerEvent(caller, domain, {
            event: review.event,
            to_status: updated.status,
            proposal_id: superseded?.id ?? null,
            reason: review.reason ?? `changed ${sent.join(', ')}`,
            details: JSON.stringify({
              changed: sent,
              changes: review.diff,
              contentHash: { before: hashContent(before), after: hashContent(after) }
            }),
            at: now
          }),
          ...(superseded !== undefined
            ? [callerEvent(caller, updated, {
                event: 'proposal_superseded',
                to_status: updated.status,
                proposal_id: superseded.id,
                reason: superseded.reason,
                details: JSON.stringify({ kind: superseded.kind, snapshotHash: superseded.snapshotHash }),
                at: now
              })]
            : [])
        ])
        await recordVersions(trx, [did])
        return withProposal(updated, review.latest)
      })
      return await privacy.one(caller, toDomain(result, now))
    },

    async deactivate (caller: Caller, did: string, reason: string | undefined): Promise<Domain> {
      const now = clock()
      await settleCollectionOf(db, did, now)
      const result = await inTransaction(db, async (trx) => {
        const locked = await lockAndSettle(trx, did, now)
        if (locked === undefined) throw new DomainNotFoundError(did)
        const { domain } = locked
        assertController(caller, domain)
        if (domain.status === 'deactivated') throw new DomainStateConflictError(`Domain ${did} is already deactivated`)
        let proposal = locked.proposal
        const cancelled = proposal?.status === 'open' ? proposal.id : null
        const changes: DomainChanges = { status: 'deactivated', deactivated_at: now, updated_at: now }
        if (proposal !== undefined && cancelled !== null && isCollection(proposal)) {
          // The rest of a collection is still voted on; this domain leaves it.
          const back = await withdrawFromCollection(trx, proposal, did, now, 'the domain was deactivated')
          changes.latest_proposal_id = back.latest_proposal_id
          proposal = back.latest_proposal_id === null ? undefined : await findProposal(trx, back.latest_proposal_id)
        } else if (cancelled !== null) {
          proposal = await updateProposal(trx, cancelled, {
            status: 'cancelled',
            closed_at: now,
            outcome_reason: 'the domain was deactivated'
          })
        }
        const updated = await updateDomain(trx, did, changes)
        await insertEvents(trx, [callerEvent(caller, domain, {
          event: 'deactivated',
          to_status: 'deactivated',
          proposal_id: cancelled,
          reason: reason ?? 'deactivated by a controller',
          at: now
        })])
        await recordVersions(trx, [did])
        return withProposal(updated, proposal)
      })
      return await privacy.one(caller, toDomain(result, now))
    },

    async history (did: string, query: { limit: number, cursor?: string | undefined }) {
      const after = decodeSequence(query.cursor)
      await readSettled(did, clock())
      const rows = await listEvents(db, did, after, query.limit + 1)
      return toPage(rows.map(toEvent), query.limit, (entry) => entry, eventPosition)
    }
  }
}

export type DomainService = ReturnType<typeof createDomainService>
