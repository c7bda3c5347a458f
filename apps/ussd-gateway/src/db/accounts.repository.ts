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
}

export interface NewAccount {
  customerId: string
  phoneNumber: string
  fullName: string
  email: string | null
  pinRecord: string
  pinKeyId: string
}

export const LOCK_REASON_PIN_ATTEMPTS = 'pin_attempts'

const toAccount = (row: AccountRow): Account => ({
  customerId: row.customer_id,
  phoneNumber: row.phone_number,
  fullName: row.full_name,
  email: row.email,
  pinRecord: row.pin_record,
  pinAttempts: row.pin_attempts,
  status: row.status,
  lockedReason: row.locked_reason,
  pinResetExpiresAt: row.pin_reset_expires_at,
  pinVersion: row.pin_version
})

/** Inserts an account; a taken customer id raises the driver's unique violation (the caller retries). */
export async function insertAccount (db: Kysely<DB>, account: NewAccount): Promise<void> {
  await db.insertInto('ussd_accounts').values({
    customer_id: account.customerId,
    phone_number: account.phoneNumber,
    full_name: account.fullName,
    email: account.email,
    pin_record: account.pinRecord,
    pin_key_id: account.pinKeyId,
    locked_reason: null
  }).execute()
}

export async function findAccount (db: Kysely<DB>, customerId: string): Promise<Account | undefined> {
  const row = await db.selectFrom('ussd_accounts').selectAll().where('customer_id', '=', customerId).executeTakeFirst()
  return row === undefined ? undefined : toAccount(row)
}

/**
 * Counts one wrong PIN and locks the account when `maxAttempts` is reached, in one statement so
 * parallel attempts cannot both slip under the limit. Resolves the new count and status, or
 * undefined when nothing was counted: the account was locked already (by a parallel attempt, say).
 */
export async function recordFailedPin (db: Kysely<DB>, customerId: string, maxAttempts: number): Promise<{ attempts: number, status: AccountStatus } | undefined> {
  const reached = sql<boolean>`pin_attempts + 1 >= ${maxAttempts}`
  const row = await db.updateTable('ussd_accounts')
    .set((eb) => ({
      pin_attempts: eb('pin_attempts', '+', 1),
      status: sql<AccountStatus>`case when ${reached} then 'locked' else status end`,
      locked_reason: sql<string | null>`case when ${reached} then ${LOCK_REASON_PIN_ATTEMPTS} else locked_reason end`,
      locked_at: sql<Date | null>`case when ${reached} then now() else locked_at end`,
      updated_at: sql<Date>`now()`
    }))
    .where('customer_id', '=', customerId)
    .where('status', '=', 'active')
    .returning(['pin_attempts', 'status'])
    .executeTakeFirst()
  return row === undefined ? undefined : { attempts: row.pin_attempts, status: row.status }
}

export async function resetPinAttempts (db: Kysely<DB>, customerId: string): Promise<void> {
  await db.updateTable('ussd_accounts')
    .set({ pin_attempts: 0, updated_at: sql<Date>`now()` })
    .where('customer_id', '=', customerId)
    .where('pin_attempts', '>', 0)
    .execute()
}

/**
 * A reseal of the same PIN under the current key (or scrypt cost): the PIN, its version and a
 * temporary PIN's deadline stay; the attempt count is cleared. Only while the account is active.
 */
export async function resealPinRecord (db: Kysely<DB>, customerId: string, pinRecord: string, pinKeyId: string): Promise<void> {
  await db.updateTable('ussd_accounts')
    .set({ pin_record: pinRecord, pin_key_id: pinKeyId, pin_attempts: 0, updated_at: sql<Date>`now()` })
    .where('customer_id', '=', customerId)
    .where('status', '=', 'active')
    .execute()
}

/**
 * A PIN the user chose, replacing the PIN of version `proven` (the one the session proved): it
 * ends a temporary PIN and clears the attempt count. Only while the account is active and still
 * has that PIN, so a lock, a reset or a change elsewhere wins. Resolves the new version, or
 * undefined when it did not apply.
 */
export async function changePinRecord (db: Kysely<DB>, customerId: string, pinRecord: string, pinKeyId: string, proven: number): Promise<number | undefined> {
  const row = await db.updateTable('ussd_accounts')
    .set((eb) => ({
      pin_record: pinRecord,
      pin_key_id: pinKeyId,
      pin_attempts: 0,
      pin_reset_expires_at: null,
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
 * Support's PIN reset: the account gets a temporary PIN (a new version: sessions that proved the
 * old PIN, or an earlier temporary one, may no longer act), good until `expiresAt` for choosing a
 * new one, and is unlocked with its attempt count cleared. Resolves false for an unknown account.
 */
export async function resetPin (db: Kysely<DB>, customerId: string, pinRecord: string, pinKeyId: string, expiresAt: Date): Promise<boolean> {
  const result = await db.updateTable('ussd_accounts')
    .set((eb) => ({
      pin_record: pinRecord,
      pin_key_id: pinKeyId,
      pin_attempts: 0,
      pin_version: eb('pin_version', '+', 1),
      status: 'active',
      locked_reason: null,
      locked_at: null,
      pin_reset_expires_at: expiresAt,
      updated_at: sql<Date>`now()`
    }))
    .where('customer_id', '=', customerId)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}
