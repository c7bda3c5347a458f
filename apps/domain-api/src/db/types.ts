import type { ColumnType, Generated, Insertable, Selectable } from 'kysely'

/** Tables of domain-api, as kysely sees them. Timestamps are read as Date and written as Date. */

type Timestamp = ColumnType<Date, Date, Date>
type NullableTimestamp = ColumnType<Date | null, Date | null | undefined, Date | null>
type Json<T> = ColumnType<T, string, string>

export interface ApiKeysTable {
  id: string
  name: string
  prefix: string
  key_hash: string
  roles: string[]
  account: string
  created_by: string
  created_at: Timestamp
  revoked_at: NullableTimestamp
  revoked_by: string | null
  /** The organisation (DID) the key acts in; null: the account's, or none (platform-wide for an admin). */
  organisation_did: ColumnType<string | null, string | null | undefined, never>
}

/** The organisation an account belongs to, assigned by an admin. */
export interface AccountOrganisationsTable {
  account: string
  organisation_did: string
  assigned_by: string
  assigned_at: Timestamp
}

export interface DomainsTable {
  did: string
  type: string
  class: string
  controllers: string[]
  metadata: Json<Record<string, unknown>>
  valid_from: NullableTimestamp
  valid_until: NullableTimestamp
  status: string
  latest_proposal_id: string | null
  created_by_key: string | null
  created_by_account: string
  created_by_service: ColumnType<string | null, string | null | undefined, string | null>
  created_at: Timestamp
  updated_at: Timestamp
  verified_at: NullableTimestamp
  deactivated_at: NullableTimestamp
  /** Device keys, services, alsoKnownAs and links of the DID document (DomainDocumentFields). */
  document: ColumnType<Record<string, unknown>, string | undefined, string>
  /**
   * An identifier from outside the registry (a serial number), set at creation only: unique per type within the
   * organisation, or within the class for a domain outside any organisation.
   */
  external_id: ColumnType<string | null, string | null | undefined, never>
  /** links.parent, and the organisation and project derived from the links when the domain was written. */
  parent_did: ColumnType<string | null, string | null | undefined, string | null>
  organisation_did: ColumnType<string | null, string | null | undefined, string | null>
  project_did: ColumnType<string | null, string | null | undefined, string | null>
  /** The content hash the verification in force approved (kept while changed, to compare). */
  verified_hash: ColumnType<string | null, string | null | undefined, string | null>
}

export interface VerificationProposalsTable {
  id: string
  domain_did: string
  /** verify, revoke or validity. */
  kind: ColumnType<string, string | undefined, never>
  status: string
  /** validity: the validUntil the domain gets if it passes. */
  valid_until: ColumnType<Date | null, Date | null | undefined, never>
  /** The content hash of the domain when it opened; null for proposals from before snapshots. */
  snapshot_hash: ColumnType<string | null, string | null | undefined, never>
  /** The domain's status when it opened (where a superseded verification leaves it). */
  prior_status: ColumnType<string | null, string | null | undefined, never>
  /** collection: how many domains it covered when it opened. */
  member_count: ColumnType<number | null, number | null | undefined, never>
  evidence: string
  evidence_hash: string | null
  note: string | null
  proposed_by_key: string | null
  proposed_by_account: string
  proposed_by_service: ColumnType<string | null, string | null | undefined, string | null>
  /** Votes needed, resolved from `quorum_rule` against the electorate when the proposal opened. */
  quorum: number
  /** The configured rule the quorum came from: a count (`3`) or a share of the electorate (`40%`). */
  quorum_rule: string
  threshold: number
  /** voter-role: the voter role's holders when it opened; council: named by the proposer; legacy: opened before. */
  electorate_source: string
  /** Accounts that may vote (the base of a percentage quorum); vetoers are counted apart. */
  electorate_size: number
  electorate_vetoers: number
  yes: ColumnType<number, number | undefined, number>
  no: ColumnType<number, number | undefined, number>
  abstain: ColumnType<number, number | undefined, number>
  veto: ColumnType<number, number | undefined, number>
  deadline: Timestamp
  created_at: Timestamp
  closed_at: NullableTimestamp
  outcome_reason: string | null
}

/** Ballots: every vote cast; a changed vote supersedes the account's previous ballot. */
export interface VerificationVotesTable {
  id: Generated<string>
  proposal_id: string
  voter_key: string
  voter_account: string
  voter_service: ColumnType<string | null, string | null | undefined, string | null>
  vote: string
  rationale: ColumnType<string | null, string | null | undefined, string | null>
  cast_at: Timestamp
  superseded_at: NullableTimestamp
}

/** Who may vote (voter) or veto (vetoer) on a proposal, fixed when it opens. */
export interface VerificationElectoratesTable {
  proposal_id: string
  account: string
  role: string
}

/** What a proposal reviews, per domain: the canonical content and its sha-256. */
export interface ProposalSnapshotsTable {
  proposal_id: string
  domain_did: string
  hash: string
  content: Json<Record<string, unknown>>
  /** Collection members: the status and latest proposal a withdrawn member goes back to. */
  prior_status: ColumnType<string | null, string | null | undefined, never>
  prior_proposal_id: ColumnType<string | null, string | null | undefined, never>
  /** When a collection member left it (its content changed, it expired or was deactivated), and why. */
  withdrawn_at: NullableTimestamp
  withdrawn_reason: ColumnType<string | null, string | null | undefined, string | null>
}

export interface DomainEventsTable {
  id: Generated<string>
  domain_did: string
  event: string
  from_status: string | null
  to_status: string
  actor_kind: string
  actor_key: string | null
  actor_account: string | null
  actor_service: ColumnType<string | null, string | null | undefined, string | null>
  proposal_id: string | null
  reason: string | null
  details: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>
  at: Timestamp
  /** xid8 of the writing transaction, as text (set by the database). */
  xid: Generated<string>
  /** W3C traceparent of the request that wrote it, when traced; never shown to readers. */
  traceparent: ColumnType<string | null, string | null | undefined, never>
}

export interface IdempotencyKeysTable {
  api_key_id: string
  key: string
  fingerprint: string
  domain_did: string
  response: Json<Record<string, unknown>>
  created_at: Timestamp
}

export interface WebhooksTable {
  id: string
  url: string
  events: string[]
  secret: string
  created_by_key: string
  created_by_account: string
  created_at: Timestamp
  cursor_xid: Generated<string>
  cursor_id: Generated<string>
  /** A hook of an organisation gets the events of that organisation's domains only; null: every event. */
  organisation_did: ColumnType<string | null, string | null | undefined, never>
}

export interface WebhookDeliveriesTable {
  id: Generated<string>
  webhook_id: string
  event_id: string
  status: string
  attempts: Generated<number>
  next_attempt_at: NullableTimestamp
  lease_until: NullableTimestamp
  last_attempt_at: NullableTimestamp
  last_status_code: number | null
  last_error: string | null
  created_at: Timestamp
  delivered_at: NullableTimestamp
}

export interface WebhookAttemptsTable {
  id: Generated<string>
  delivery_id: string
  at: Timestamp
  status_code: number | null
  error: string | null
  duration_ms: number
}

export interface DomainVersionsTable {
  did: string
  version: number
  at: Timestamp
  snapshot: Json<Record<string, unknown>>
}

export interface AccountRolesTable {
  account: string
  role: string
  granted_by: string
  granted_at: Timestamp
}

export interface UcanRevocationsTable {
  cid: string
  revoked_by: string
  revoked_at: Timestamp
  expires_at: Timestamp
}

export interface DomainBatchesTable {
  api_key_id: string
  key: string
  fingerprint: string
  total: number
  /** The per-item results so far, in input order. */
  results: Json<unknown[]>
  complete: boolean
  /** Who is running the batch, and until when: another request takes over only once the lease has passed. */
  lease_token: string
  lease_until: Timestamp
  created_at: Timestamp
}

export interface DB {
  account_organisations: AccountOrganisationsTable
  account_roles: AccountRolesTable
  api_keys: ApiKeysTable
  domains: DomainsTable
  verification_proposals: VerificationProposalsTable
  verification_votes: VerificationVotesTable
  verification_electorates: VerificationElectoratesTable
  proposal_snapshots: ProposalSnapshotsTable
  domain_events: DomainEventsTable
  idempotency_keys: IdempotencyKeysTable
  domain_batches: DomainBatchesTable
  webhooks: WebhooksTable
  webhook_deliveries: WebhookDeliveriesTable
  webhook_attempts: WebhookAttemptsTable
  domain_versions: DomainVersionsTable
  ucan_revocations: UcanRevocationsTable
}

export type DomainRow = Selectable<DomainsTable>
export type ProposalRow = Selectable<VerificationProposalsTable>
export type ApiKeyRow = Selectable<ApiKeysTable>
export type EventRow = Selectable<DomainEventsTable>
export type NewEvent = Insertable<DomainEventsTable>
