import type { ColumnType, Generated, Selectable } from 'kysely'

/** Tables of ussd-gateway, as kysely sees them. */

export type AccountStatus = 'active' | 'locked'
export type Language = 'en' | 'sw'
/** What an account may do in the menus: every account is a household; field agents also register devices. */
export type Role = 'household' | 'agent'
export const ROLES: readonly Role[] = ['household', 'agent']

export interface AccountsTable {
  customer_id: string
  phone_number: string
  full_name: string
  email: string | null
  /** AES-256-GCM sealed, peppered scrypt hash (see services/pin-vault.ts); never the PIN. */
  pin_record: string
  pin_key_id: string
  pin_attempts: Generated<number>
  status: ColumnType<AccountStatus, AccountStatus | undefined, AccountStatus>
  locked_reason: string | null
  locked_at: ColumnType<Date | null, Date | null | undefined, Date | null>
  /** Set while the stored PIN is a temporary one issued by support: good until then, for choosing a new PIN only. */
  pin_reset_expires_at: ColumnType<Date | null, Date | null | undefined, Date | null>
  /** Counts the account's PINs (reseals keep it): sessions compare it to the one they proved. */
  pin_version: Generated<number>
  locked_until: ColumnType<Date | null, Date | null | undefined, Date | null>
  lockouts: Generated<number>
  /** The user's own PIN (sealed) before support's temporary one: the PIN chosen next must differ from it. */
  previous_pin_record: ColumnType<string | null, string | null | undefined, string | null>
  /** Drawn for a session's sign-up (kept in the session): a retried final hop finds the account it created. */
  creation_key: ColumnType<string | null, string | null | undefined, string | null>
  /** The account's did:key; null only for accounts from before identities, until their next login. */
  did: ColumnType<string | null, string | null | undefined, string | null>
  /** The did's Ed25519 private key, AES-256-GCM sealed (services/account-keys.ts); never the key itself. */
  signing_key_record: ColumnType<string | null, string | null | undefined, string | null>
  signing_key_id: ColumnType<string | null, string | null | undefined, string | null>
  roles: ColumnType<Role[], Role[] | undefined, Role[]>
  created_at: ColumnType<Date, never, never>
  updated_at: ColumnType<Date, Date | undefined, Date>
}

export interface PhonePreferencesTable {
  phone_number: string
  language: Language
  updated_at: ColumnType<Date, Date | undefined, Date>
}

/** How a session ended: our END, the aggregator's notice (the user hung up or cancelled), or inactivity. */
export type EndReason = 'end' | 'user' | 'timeout'

/** One ended session, for the drop-off report (never a PIN, text or phone number). */
export interface SessionRecordsTable {
  id: Generated<string>
  session_id: string
  service_code: string
  network_code: string | null
  hops: number
  /** The state (screen) the session was on when it ended. */
  last_state: string
  end_reason: EndReason
  started_at: Date
  ended_at: Date
  duration_ms: number
  aggregator_status: ColumnType<string | null, string | null | undefined, string | null>
  aggregator_cost: ColumnType<string | null, string | null | undefined, string | null>
}

export interface DB {
  ussd_accounts: AccountsTable
  ussd_phone_preferences: PhonePreferencesTable
  ussd_session_records: SessionRecordsTable
}

export type AccountRow = Selectable<AccountsTable>
