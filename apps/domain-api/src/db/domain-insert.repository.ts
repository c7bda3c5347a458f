import { sql, type Kysely } from 'kysely'
import { activeTraceparent } from '@impact/service-kit'
import type { DB } from './types.ts'
import { versionInsert } from './version.repository.ts'

export interface NewDomain {
  did: string
  type: string
  class: string
  controllers: string[]
  metadata: Record<string, unknown>
  /** DID document fields (DomainDocumentFields). */
  document?: Record<string, unknown>
  validFrom: Date | null
  validUntil: Date | null
  createdByKey: string | null
  createdByAccount: string
  /** The service that invoked for the account (UCAN), else null. */
  createdByService: string | null
  /** How the creator proved itself: the history entry's actor kind. */
  createdVia: 'api-key' | 'ucan'
  createdAt: Date
  /** An identifier from outside the registry (a serial number), unique per type within the organisation. */
  externalId?: string | null | undefined
  /** links.parent, and the organisation and project derived from the links (placement.ts). */
  parent?: string | null | undefined
  organisation?: string | null | undefined
  project?: string | null | undefined
}

export interface IdempotencyClaim {
  apiKeyId: string
  key: string
  fingerprint: string
  response: Record<string, unknown>
}

export interface DomainInsert {
  domain: NewDomain
  /** Why, for the `created` history entry. */
  reason: string
  claim?: IdempotencyClaim | undefined
  /** The trace of the request creating it (the active one when absent), kept with the `created` event. */
  traceparent?: string | null | undefined
}

/**
 * Inserts domains with their `created` entries and first versions in one atomic statement. A row with an
 * idempotency claim goes in only with its claim, so concurrent retries create one domain (the unique key makes
 * the second wait); claims older than `retentionMs` are taken over. With `skipConflicts`, a row that would break
 * a unique key (an external id taken meanwhile) is left out instead of failing the statement. Resolves the DIDs
 * inserted.
 */
export async function insertDomains (
  db: Kysely<DB>,
  rows: DomainInsert[],
  retentionMs: number,
  options: { skipConflicts?: boolean } = {}
): Promise<Set<string>> {
  const column = <T>(value: (row: DomainInsert) => T) => rows.map(value)
  const iso = (date: Date | null) => (date === null ? null : date.toISOString())
  const traceparent = activeTraceparent() ?? null
  // One array per column, unnested: a thousand rows cost a few parameters to bind and plan, not twenty thousand.
  const result = await sql<{ did: string }>`
    with input as (
      select did, type, class, array(select jsonb_array_elements_text(controllers)) as controllers, metadata,
        valid_from, valid_until, created_by_key, created_by_account, created_by_service, created_via, created_at,
        reason, claim_api_key, claim_key, fingerprint, response, document, external_id, parent_did, organisation_did,
        project_did, traceparent
      from unnest(
        ${column((r) => r.domain.did)}::text[], ${column((r) => r.domain.type)}::text[],
        ${column((r) => r.domain.class)}::text[], ${column((r) => JSON.stringify(r.domain.controllers))}::jsonb[],
        ${column((r) => JSON.stringify(r.domain.metadata))}::jsonb[],
        ${column((r) => iso(r.domain.validFrom))}::timestamptz[],
        ${column((r) => iso(r.domain.validUntil))}::timestamptz[], ${column((r) => r.domain.createdByKey)}::text[],
        ${column((r) => r.domain.createdByAccount)}::text[], ${column((r) => r.domain.createdByService)}::text[],
        ${column((r) => r.domain.createdVia)}::text[], ${column((r) => iso(r.domain.createdAt))}::timestamptz[],
        ${column((r) => r.reason)}::text[], ${column((r) => r.claim?.apiKeyId ?? null)}::text[],
        ${column((r) => r.claim?.key ?? null)}::text[], ${column((r) => r.claim?.fingerprint ?? null)}::text[],
        ${column((r) => (r.claim !== undefined ? JSON.stringify(r.claim.response) : null))}::jsonb[],
        ${column((r) => JSON.stringify(r.domain.document ?? {}))}::jsonb[],
        ${column((r) => r.domain.externalId ?? null)}::text[], ${column((r) => r.domain.parent ?? null)}::text[],
        ${column((r) => r.domain.organisation ?? null)}::text[], ${column((r) => r.domain.project ?? null)}::text[],
        ${column((r) => r.traceparent ?? traceparent)}::text[]
      ) as u (did, type, class, controllers, metadata, valid_from, valid_until, created_by_key, created_by_account,
        created_by_service, created_via, created_at, reason, claim_api_key, claim_key, fingerprint, response,
        document, external_id, parent_did, organisation_did, project_did, traceparent)
    ),
    claimed as (
      insert into idempotency_keys (api_key_id, key, fingerprint, domain_did, response, created_at)
      select claim_api_key, claim_key, fingerprint, did, response, created_at from input where claim_key is not null
      on conflict (api_key_id, key) do update
        set fingerprint = excluded.fingerprint, domain_did = excluded.domain_did, response = excluded.response,
          created_at = excluded.created_at
        where idempotency_keys.created_at < excluded.created_at - ${retentionMs} * interval '1 millisecond'
      returning domain_did
    ),
    inserted as (
      insert into domains (did, type, class, controllers, metadata, valid_from, valid_until, status,
        created_by_key, created_by_account, created_by_service, created_at, updated_at, document, external_id,
        parent_did, organisation_did, project_did)
      select did, type, class, controllers, metadata, valid_from, valid_until, 'draft', created_by_key,
        created_by_account, created_by_service, created_at, created_at, document, external_id, parent_did,
        organisation_did, project_did
      from input where claim_key is null or did in (select domain_did from claimed)
      ${options.skipConflicts === true ? sql`on conflict do nothing` : sql``}
      returning *
    ),
    versioned as (${versionInsert(sql`inserted`, { first: true })})
    insert into domain_events (domain_did, event, from_status, to_status, actor_kind, actor_key, actor_account,
      actor_service, reason, at, traceparent)
    select i.did, 'created', null, 'draft', i.created_via, i.created_by_key, i.created_by_account, i.created_by_service,
      i.reason, i.created_at, i.traceparent
    from input i join inserted using (did)
    returning domain_did as did
  `.execute(db)
  return new Set(result.rows.map((r) => r.did))
}
