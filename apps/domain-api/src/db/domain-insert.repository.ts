import { sql, type Kysely } from 'kysely'
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
  const values = rows.map(({ domain: d, reason, claim }) => sql`(
    ${d.did}::text, ${d.type}::text, ${d.class}::text, ${d.controllers}::text[], ${JSON.stringify(d.metadata)}::jsonb,
    ${d.validFrom}::timestamptz, ${d.validUntil}::timestamptz, ${d.createdByKey}::text, ${d.createdByAccount}::text,
    ${d.createdByService}::text, ${d.createdVia}::text, ${d.createdAt}::timestamptz, ${reason}::text,
    ${claim?.apiKeyId ?? null}::text, ${claim?.key ?? null}::text,
    ${claim?.fingerprint ?? null}::text, ${claim !== undefined ? JSON.stringify(claim.response) : null}::jsonb,
    ${JSON.stringify(d.document ?? {})}::jsonb, ${d.externalId ?? null}::text, ${d.parent ?? null}::text,
    ${d.organisation ?? null}::text, ${d.project ?? null}::text
  )`)
  const result = await sql<{ did: string }>`
    with input (did, type, class, controllers, metadata, valid_from, valid_until, created_by_key, created_by_account,
      created_by_service, created_via, created_at, reason, claim_api_key, claim_key, fingerprint, response, document,
      external_id, parent_did, organisation_did, project_did)
      as (values ${sql.join(values)}),
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
    versioned as (${versionInsert(sql`inserted`)})
    insert into domain_events (domain_did, event, from_status, to_status, actor_kind, actor_key, actor_account,
      actor_service, reason, at)
    select i.did, 'created', null, 'draft', i.created_via, i.created_by_key, i.created_by_account, i.created_by_service,
      i.reason, i.created_at
    from input i join inserted using (did)
    returning domain_did as did
  `.execute(db)
  return new Set(result.rows.map((r) => r.did))
}
