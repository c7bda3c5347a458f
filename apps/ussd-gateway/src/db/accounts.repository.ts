import { sql, type Kysely } from 'kysely'
import type { AccountRow, AccountStatus, DB } from './types.ts'

/** An account as the menus see it. `pinRecord` is sealed (services/pin-vault.ts), never a PIN. */
export interface Account {
  customerId: string
  phoneNumber: string
  fullName: string
  email: string | null
  pinRecord: string
  pinAttempts: number
  status: AccountStatus
  lockedReason: string | null
  /** Set while the PIN is a temporary one (support's reset): it only lets the user choose a new PIN, until then. */
  pinResetExpiresAt: Date | null
  /** Which PIN this is (see the migration): a session that proved another one may no longer act. */
  pinVersion: number
  /** When the lock lifts (set while locked). */
  lockedUntil: Date | null
  /** Lockouts since the last successful login. */
  lockouts: number
  /** The user's own PIN (sealed) before support's temporary one, refused as the next PIN. */
  previousPinRecord: string | null
}

export interface NewAccount {
  customerId: string
  phoneNumber: string
  fullName: string
  email: string | null
  pinRecord: string
  pinKeyId: string
  /** Drawn for the sign-up and kept in its session: the same key again finds this account. */
  creationKey: string
}

export const LOCK_REASON_PIN_ATTEMPTS = 'pin_attempts'

export const toAccount = (row: AccountRow): Account => ({
  customerId: row.customer_id,
  phoneNumber: row.phone_number,
  fullName: row.full_name,
  email: row.email,
  pinRecord: row.pin_record,
  pinAttempts: row.pin_attempts,
  status: row.status,
  lockedReason: row.locked_reason,
  pinResetExpiresAt: row.pin_reset_expires_at,
  pinVersion: row.pin_version,
  lockedUntil: row.locked_until,
  lockouts: row.lockouts,
  previousPinRecord: row.previous_pin_record
})

/**
 * Inserts an account; a taken customer id raises the driver's unique violation (the caller draws
 * another). Resolves false, inserting nothing, when an account with the same creation key exists.
 */
export async function insertAccount (db: Kysely<DB>, account: NewAccount): Promise<boolean> {
  const row = await db.insertInto('ussd_accounts').values({
    customer_id: account.customerId,
    phone_number: account.phoneNumber,
    full_name: account.fullName,
    email: account.email,
    pin_record: account.pinRecord,
    pin_key_id: account.pinKeyId,
    creation_key: account.creationKey,
    locked_reason: null
  }).onConflict((oc) => oc.column('creation_key').doNothing()).returning('customer_id').executeTakeFirst()
  return row !== undefined
}

export async function findAccount (db: Kysely<DB>, customerId: string): Promise<Account | undefined> {
  const row = await db.selectFrom('ussd_accounts').selectAll().where('customer_id', '=', customerId).executeTakeFirst()
  return row === undefined ? undefined : toAccount(row)
}

export async function findAccountByCreationKey (db: Kysely<DB>, creationKey: string): Promise<Account | undefined> {
  const row = await db.selectFrom('ussd_accounts').selectAll()
    .where('creation_key', '=', creationKey)
    .executeTakeFirst()
  return row === undefined ? undefined : toAccount(row)
}

/**
 * A PIN the user chose, only over version `proven` (the one the session proved) of an active account, so a
 * lock, reset or change elsewhere wins. Resolves the new version, or undefined when it did not apply.
 */
export async function changePinRecord (
  db: Kysely<DB>,
  customerId: string,
  pinRecord: string,
  pinKeyId: string,
  proven: number
): Promise<number | undefined> {
  const row = await db.updateTable('ussd_accounts')
    .set((eb) => ({
      pin_record: pinRecord,
      pin_key_id: pinKeyId,
      pin_attempts: 0,
      pin_reset_expires_at: null,
      previous_pin_record: null,
      pin_version: eb('pin_version', '+', 1),
      updated_at: sql<Date>`now()`
    }))
    .where('customer_id', '=', customerId)
    .where('status', '=', 'active')
    .where('pin_version', '=', proven)
    .returning('pin_version')
    .executeTakeFirst()
  return row?.pin_version
}

/**
 * Support's PIN reset: a temporary PIN (a new version, so sessions that proved the old one stop),
 * good until `expiresAt`, and the account unlocked. The user's own PIN is kept as the previous one,
 * which the new PIN must differ from. Resolves false for an unknown account.
 */
export async function resetPin (
  db: Kysely<DB>,
  customerId: string,
  pinRecord: string,
  pinKeyId: string,
  expiresAt: Date
): Promise<boolean> {
  const result = await db.updateTable('ussd_accounts')
    .set((eb) => ({
      pin_record: pinRecord,
      pin_key_id: pinKeyId,
      pin_attempts: 0,
      pin_version: eb('pin_version', '+', 1),
      previous_pin_record: sql<string | null>`case when pin_reset_expires_at is null then pin_record
        else previous_pin_record end`,
      status: 'active',
      locked_reason: null,
      locked_at: null,
      locked_until: null,
      lockouts: 0,
      pin_reset_expires_at: expiresAt,
      updated_at: sql<Date>`now()`
    }))
    .where('customer_id', '=', customerId)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}
