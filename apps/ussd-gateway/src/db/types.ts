import type { ColumnType, Generated, Selectable } from 'kysely'

export type AccountStatus = 'active' | 'locked'
export type Language = 'en' | 'sw'
export type Role = 'household' | 'agent'
export const ROLES: readonly Role[] = ['household', 'agent']

export interface AccountsTable {
  customer_id: string
  phone_number: string
  full_name: string
  email: string | null
  /** Sealed scrypt hash; never the PIN. */
  pin_record: string
  pin_key_id: string
  pin_attempts: Generated<number>
  status: ColumnType<AccountStatus, AccountStatus | undefined, AccountStatus>
  locked_reason: string | null
  locked_at: ColumnType<Date | null, Date | null | undefined, Date | null>
  /** A temporary PIN from support is good until then, for choosing a new PIN only. */
  pin_reset_expires_at: ColumnType<Date | null, Date | null | undefined, Date | null>
  /** Reseals keep it: sessions compare it to the one they proved. */
  pin_version: Generated<number>
  locked_until: ColumnType<Date | null, Date | null | undefined, Date | null>
  lockouts: Generated<number>
  /** The PIN chosen after a support reset must differ from it. */
  previous_pin_record: ColumnType<string | null, string | null | undefined, string | null>
  /** Lets a retried final hop find the account it created. */
  creation_key: ColumnType<string | null, string | null | undefined, string | null>
  /** Null only for accounts from before identities, until their next login. */
  did: ColumnType<string | null, string | null | undefined, string | null>
  /** Sealed; never the key itself. */
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

export type EndReason = 'end' | 'user' | 'timeout'

/** Never a PIN, text or phone number. */
export interface SessionRecordsTable {
  id: Generated<string>
  session_id: string
  service_code: string
  network_code: string | null
  hops: number
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
