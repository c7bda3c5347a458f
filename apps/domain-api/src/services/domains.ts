import { randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import { inTransaction, isUniqueViolation } from '@impact/persistence'
import {
  findDidByExternalId,
  findDomain,
  findDomainType,
  findIdempotencyClaim,
  listDomains,
  updateDomain,
  type DomainChanges,
  type DomainWithProposal
} from '../db/domain.repository.ts'
import type { NewDomain } from '../db/domain-insert.repository.ts'
import { insertEvents, listEvents } from '../db/event.repository.ts'
import { updateProposal } from '../db/proposal.repository.ts'
import { recordVersions } from '../db/version.repository.ts'
import type { DB, DomainRow } from '../db/types.ts'
import {
  DomainClassNotProtocolError,
  DomainExternalIdTakenError,
  DomainForbiddenError,
  DomainIdempotencyMismatchError,
  DomainNotControllerError,
  DomainNotFoundError,
  DomainStateConflictError,
  invalid
} from '../errors.ts'
import {
  ENTITY_DID_PATTERN, type CreateDomainBody, type Domain, type DomainEvent, type ListDomainsQuery, type UpdateDomainBody
} from '@impact/schemas'
import { principalOf, type Caller } from './api-keys.ts'
import type { Clock } from './clock.ts'
import { createInsertBatcher } from './create-batcher.ts'
import { isProtocolType } from './entity-types.ts'
import { fingerprint } from './fingerprint.ts'
import { callerEvent, isDue, lockAndSettle, settleDomain, settleDue } from './lifecycle.ts'
import { decodeKeyset, decodeSequence, toPage } from './pagination.ts'
import { draftRow, toDomain, toEvent, withProposal } from './records.ts'
import { checkDocumentFields, documentFieldsOf } from './did-document.ts'
import { checkMetadata, checkValidity, classOf, entityTypeOf, toInstant } from './validation.ts'

const ENTITY_DID = new RegExp(ENTITY_DID_PATTERN)
/** Metadata and validity are what voters review, so they change only outside review and verification. */
const CONTENT_EDITABLE = new Set(['draft', 'rejected', 'expired'])
const CLASS_CACHE_MAX = 10_000

/** A fresh entity DID: 128 bits from the CSPRNG, in the chain's `did:ixo:entity:<32 hex>` form. */
export const newEntityDid = () => `did:ixo:entity:${randomBytes(16).toString('hex')}`

/** Positions in listings (domains newest first, history entries in order); cursors encode them. */
export const domainPosition = (domain: Pick<Domain, 'createdAt' | 'did'>) => [domain.createdAt, domain.did]
export const eventPosition = (entry: Pick<DomainEvent, 'id'>) => [entry.id]

export interface CreateResult { domain: Domain, replayed: boolean }

export function createDomainService (
  { db, clock, idempotencyTtlMs }: { db: Kysely<DB>, clock: Clock, idempotencyTtlMs: number }
) {
  // Entity types never change once registered, so a known class's type can be cached for good.
  const classTypes = new Map<string, string>()
  const batcher = createInsertBatcher(db, idempotencyTtlMs)

  async function checkClass (classDid: string) {
    if (!ENTITY_DID.test(classDid)) return
    let type = classTypes.get(classDid)
    if (type === undefined) {
      type = await findDomainType(db, classDid)
      if (type !== undefined && classTypes.size < CLASS_CACHE_MAX) classTypes.set(classDid, type)
    }
    // A class we do not hold may live on chain; one we hold must be a protocol.
    if (type !== undefined && !isProtocolType(type)) throw new DomainClassNotProtocolError(classDid, type)
  }

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

  function assertController (caller: Caller, domain: DomainRow) {
    if (!caller.roles.includes('admin') && !domain.controllers.includes(caller.account)) {
      throw new DomainNotControllerError(domain.did)
    }
  }

  return {
    readSettled,

    async create (caller: Caller, body: CreateDomainBody, idempotencyKey?: string): Promise<CreateResult> {
      const now = clock()
      const type = entityTypeOf(body.type)
      const classDid = classOf(body)
      const validFrom = toInstant(body.validFrom ?? null)
      const validUntil = toInstant(body.validUntil ?? null)
      checkValidity(validFrom, validUntil, now, true)
      checkMetadata(body.metadata)
      checkDocumentFields(body)
      await checkClass(classDid)
      // Flow 3 of the platform: an agent registers for a household, which becomes the controller.
      if (body.onBehalfOf !== undefined && !caller.roles.includes('registrar')) {
        throw new DomainForbiddenError('registrar, to register for another controller')
      }
      const controllers = [...new Set([body.onBehalfOf ?? caller.account, ...(body.controllers ?? [])])]
      const requestFingerprint = idempotencyKey !== undefined ? fingerprint(body) : ''

      for (let attempt = 1; attempt <= 3; attempt++) {
        const draft: NewDomain = {
          did: newEntityDid(),
          type,
          class: classDid,
          controllers,
          metadata: body.metadata ?? {},
          document: documentFieldsOf(body),
          validFrom,
          validUntil,
          createdByKey: caller.keyId,
          createdByAccount: caller.account,
          createdByService: caller.service,
          createdVia: caller.via,
          createdAt: now,
          externalId: body.externalId
        }
        const domain = toDomain(draftRow(draft), now)
        const claim = idempotencyKey === undefined
          ? undefined
          : { apiKeyId: principalOf(caller), key: idempotencyKey, fingerprint: requestFingerprint, response: domain }
        try {
          const reason = `registered as ${type} of ${classDid}`
          if (await batcher.insert({ domain: draft, reason, claim })) return { domain, replayed: false }
        } catch (error) {
          if (!isUniqueViolation(error)) throw error
          // The other unique key: the external id is taken within the class (a device registered twice).
          const holder = body.externalId !== undefined
            ? await findDidByExternalId(db, classDid, body.externalId)
            : undefined
          if (holder !== undefined) throw new DomainExternalIdTakenError(classDid, body.externalId, holder)
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

    async get (did: string): Promise<Domain> {
      const now = clock()
      return toDomain(await readSettled(did, now), now)
    },

    async list (query: ListDomainsQuery) {
      const now = clock()
      const after = decodeKeyset(query.cursor)
      const type = query.type !== undefined ? entityTypeOf(query.type, '/type') : undefined
      if (query.protocol !== undefined && query.class !== undefined && query.protocol !== query.class) {
        throw invalid('class and protocol filter the same field; send one, or both equal', [
          { field: '/protocol', message: 'must equal class' }
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
        externalId: query.externalId
      }, after, query.limit + 1)
      return toPage(rows.map((row) => toDomain(row, now)), query.limit, (domain) => domain, domainPosition)
    },

    async update (caller: Caller, did: string, body: UpdateDomainBody): Promise<Domain> {
      const now = clock()
      checkMetadata(body.metadata)
      const result = await inTransaction(db, async (trx) => {
        const locked = await lockAndSettle(trx, did, now)
        if (locked === undefined) throw new DomainNotFoundError(did)
        const { domain } = locked
        assertController(caller, domain)
        if (domain.status === 'deactivated') throw new DomainStateConflictError(`Domain ${did} is deactivated`)
        const content = (['metadata', 'validFrom', 'validUntil'] as const).filter((f) => body[f] !== undefined)
        if (content.length > 0 && !CONTENT_EDITABLE.has(domain.status)) {
          throw new DomainStateConflictError(`Metadata and validity of a ${domain.status} domain are frozen ` +
            '(they are what governance reviewed); controllers can still change')
        }
        const validFrom = body.validFrom !== undefined ? toInstant(body.validFrom) : domain.valid_from
        const validUntil = body.validUntil !== undefined ? toInstant(body.validUntil) : domain.valid_until
        checkValidity(validFrom, validUntil, now, body.validUntil !== undefined)
        const renewed = domain.status === 'expired' && body.validUntil !== undefined
        const changes: DomainChanges = { updated_at: now, ...(renewed ? { status: 'draft' } : {}) }
        if (body.metadata !== undefined) changes.metadata = body.metadata
        if (body.validFrom !== undefined) changes.valid_from = validFrom
        if (body.validUntil !== undefined) changes.valid_until = validUntil
        if (body.controllers !== undefined) changes.controllers = body.controllers
        const documentChanges = documentFieldsOf(body)
        const documentChanged = Object.keys(documentChanges)
        if (documentChanged.length > 0) {
          // Checked merged: a new service may not take the fragment of a key it leaves in place.
          const merged = { ...domain.document, ...documentChanges }
          checkDocumentFields(merged)
          changes.document = JSON.stringify(merged)
        }
        const updated = await updateDomain(trx, did, changes)
        const changed = [...content, ...(body.controllers !== undefined ? ['controllers'] : []), ...documentChanged]
        await insertEvents(trx, [callerEvent(caller, domain, {
          event: renewed ? 'renewed' : 'updated',
          to_status: updated.status,
          reason: renewed ? 'validity renewed; the domain needs verification again' : `changed ${changed.join(', ')}`,
          details: JSON.stringify({
            changed,
            ...(body.controllers !== undefined
              ? { controllers: { before: domain.controllers, after: body.controllers } }
              : {})
          }),
          at: now
        })])
        await recordVersions(trx, [did])
        return withProposal(updated, locked.proposal)
      })
      return toDomain(result, now)
    },

    async deactivate (caller: Caller, did: string, reason: string | undefined): Promise<Domain> {
      const now = clock()
      const result = await inTransaction(db, async (trx) => {
        const locked = await lockAndSettle(trx, did, now)
        if (locked === undefined) throw new DomainNotFoundError(did)
        const { domain } = locked
        assertController(caller, domain)
        if (domain.status === 'deactivated') throw new DomainStateConflictError(`Domain ${did} is already deactivated`)
        let proposal = locked.proposal
        const cancelled = proposal?.status === 'open' ? proposal.id : null
        if (cancelled !== null) {
          proposal = await updateProposal(trx, cancelled, {
            status: 'cancelled',
            closed_at: now,
            outcome_reason: 'the domain was deactivated'
          })
        }
        const updated = await updateDomain(trx, did, { status: 'deactivated', deactivated_at: now, updated_at: now })
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
      return toDomain(result, now)
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
