import type { MigrationSet } from '@impact/persistence'
import * as createRegistry from './2026_11_21_163000_create_registry.ts'
import * as addAccountPrincipals from './2026_12_05_090000_add_account_principals.ts'
import * as createDomainVersions from './2026_12_05_100000_create_domain_versions.ts'
import * as createWebhooks from './2026_12_05_110000_create_webhooks.ts'
import * as createUcanRevocations from './2026_12_12_090000_create_ucan_revocations.ts'
import * as addDomainExternalId from './2026_12_20_090000_add_domain_external_id.ts'
import * as addProposalElectorates from './2026_12_21_090000_add_proposal_electorates.ts'
import * as addDomainPlacement from './2026_12_22_090000_add_domain_placement.ts'
import * as addTenancy from './2026_12_24_090000_add_tenancy.ts'
import * as addProposalSnapshots from './2026_12_24_140000_add_proposal_snapshots.ts'
import * as addCollectionProposals from './2026_12_24_150000_add_collection_proposals.ts'
import * as createAuditEvents from './2026_12_26_090000_create_audit_events.ts'
import * as addEventTraceContext from './2026_12_27_090000_add_event_trace_context.ts'

/** Frozen migrations of domain-api, applied in name order. Never edit one that has shipped; add a new one. */
export const migrations: MigrationSet = {
  '2026_11_21_163000_create_registry': createRegistry,
  '2026_12_05_090000_add_account_principals': addAccountPrincipals,
  '2026_12_05_100000_create_domain_versions': createDomainVersions,
  '2026_12_05_110000_create_webhooks': createWebhooks,
  '2026_12_12_090000_create_ucan_revocations': createUcanRevocations,
  '2026_12_20_090000_add_domain_external_id': addDomainExternalId,
  '2026_12_21_090000_add_proposal_electorates': addProposalElectorates,
  '2026_12_22_090000_add_domain_placement': addDomainPlacement,
  '2026_12_24_090000_add_tenancy': addTenancy,
  '2026_12_24_140000_add_proposal_snapshots': addProposalSnapshots,
  '2026_12_24_150000_add_collection_proposals': addCollectionProposals,
  '2026_12_26_090000_create_audit_events': createAuditEvents,
  '2026_12_27_090000_add_event_trace_context': addEventTraceContext
}
