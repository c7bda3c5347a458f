import type { MigrationSet } from '@impact/persistence'
import * as createAccounts from './2026_11_21_120000_create_accounts.ts'
import * as pinReset from './2026_11_25_090000_pin_reset.ts'
import * as addPinLockout from './2026_12_01_090000_add_pin_lockout.ts'
import * as addCreationKey from './2026_12_01_090100_add_creation_key.ts'
import * as addAccountIdentity from './2026_12_10_090000_add_account_identity.ts'
import * as createSessionRecords from './2026_12_14_090000_create_session_records.ts'
import * as createAuditEvents from './2026_12_24_090000_create_audit_events.ts'

/** Frozen migrations of ussd-gateway, applied in name order. Never edit one that has shipped; add a new one. */
export const migrations: MigrationSet = {
  '2026_11_21_120000_create_accounts': createAccounts,
  '2026_11_25_090000_pin_reset': pinReset,
  '2026_12_01_090000_add_pin_lockout': addPinLockout,
  '2026_12_01_090100_add_creation_key': addCreationKey,
  '2026_12_10_090000_add_account_identity': addAccountIdentity,
  '2026_12_14_090000_create_session_records': createSessionRecords,
  '2026_12_24_090000_create_audit_events': createAuditEvents
}
