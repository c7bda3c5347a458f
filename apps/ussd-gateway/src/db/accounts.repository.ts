import { inTransaction } from '@impact/persistence'
import { sql, type Kysely } from 'kysely'
import type { AccountRow, AccountStatus, DB, Role } from './types.ts'

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
  /** The account's did:key, or null until the first login of an account from before identities. */
  did: string | null
  /** The did's private key, sealed (services/account-keys.ts), and the id of the key that sealed it. */
  signingKeyRecord: string | null
  signingKeyId: string | null
  roles: Role[]
  createdAt: Date
}

/** An account's did:key with its sealed private key. */
export interface AccountIdentity {
  did: string
  signingKeyRecord: string
  signingKeyId: string
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
  identity: AccountIdentity
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
  previousPinRecord: row.previous_pin_record,
  did: row.did,
  signingKeyRecord: row.signing_key_record,
  signingKeyId: row.signing_key_id,
  roles: row.roles,
  createdAt: row.created_at
})

/** What became of a sign-up: created now, created earlier under its creation key, or refused for its phone. */
export type InsertOutcome = 'created' | 'exists' | 'phoneFull'

/**
 * Inserts an account unless one with the same creation key exists (a retried sign-up) or its phone already
 * has `maxPerPhone` accounts. Sign-ups of one phone are serialised by a transaction-scoped advisory lock, so
 * parallel ones cannot both pass the count. A taken customer id raises the driver's unique violation (the
 * caller draws another).
 */
export async function insertAccount (db: Kysely<DB>, account: NewAccount, maxPerPhone: number): Promise<InsertOutcome> {
  return await inTransaction(db, async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtextextended(${`ussd-phone:${account.phoneNumber}`}, 0))`.execute(trx)
    const earlier = await trx.selectFrom('ussd_accounts').select('customer_id')
      .where('creation_key', '=', account.creationKey)
      .executeTakeFirst()
    if (earlier !== undefined) return 'exists'
    if (await countAccountsOfPhone(trx, account.phoneNumber) >= maxPerPhone) return 'phoneFull'
    await trx.insertInto('ussd_accounts').values({
      customer_id: account.customerId,
      phone_number: account.phoneNumber,
      full_name: account.fullName,
      email: account.email,
      pin_record: account.pinRecord,
      pin_key_id: account.pinKeyId,
      creation_key: account.creationKey,
      did: account.identity.did,
      signing_key_record: account.identity.signingKeyRecord,
      signing_key_id: account.identity.signingKeyId,
      locked_reason: null
    }).execute()
    return 'created'
  })
}

export async function countAccountsOfPhone (db: Kysely<DB>, phoneNumber: string): Promise<number> {
  const row = await db.selectFrom('ussd_accounts')
    .select((eb) => eb.fn.countAll<string | number>().as('count'))
    .where('phone_number', '=', phoneNumber)
    .executeTakeFirstOrThrow()
  return Number(row.count)
}

/**
 * Gives an account from before identities its did and sealed key; only when it has none, so parallel
 * logins agree on one. Resolves false when another got there first.
 */
export async function provideIdentity (
  db: Kysely<DB>,
  customerId: string,
  identity: AccountIdentity
): Promise<boolean> {
  const result = await db.updateTable('ussd_accounts')
    .set({
      did: identity.did,
      signing_key_record: identity.signingKeyRecord,
      signing_key_id: identity.signingKeyId,
      updated_at: sql<Date>`now()`
    })
    .where('customer_id', '=', customerId)
    .where('did', 'is', null)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

/** The same private key sealed again under the current key (rotation); only over the record it replaces. */
export async function resealSigningKey (
  db: Kysely<DB>,
  customerId: string,
  from: string,
  to: { signingKeyRecord: string, signingKeyId: string }
): Promise<void> {
  await db.updateTable('ussd_accounts')
    .set({ signing_key_record: to.signingKeyRecord, signing_key_id: to.signingKeyId, updated_at: sql<Date>`now()` })
    .where('customer_id', '=', customerId)
    .where('signing_key_record', '=', from)
    .execute()
}

/** Sets an account's roles; resolves the account, or undefined for an unknown customer id. */
export async function setRoles (db: Kysely<DB>, customerId: string, roles: Role[]): Promise<Account | undefined> {
  const row = await db.updateTable('ussd_accounts')
    .set({ roles, updated_at: sql<Date>`now()` })
    .where('customer_id', '=', customerId)
    .returningAll()
    .executeTakeFirst()
  return row === undefined ? undefined : toAccount(row)
}

export async function findAccount (db: Kysely<DB>, customerId: string): Promise<Account | undefined> {
  const row = await db.selectFrom('ussd_accounts').selectAll().where('customer_id', '=', customerId).executeTakeFirst()
  return row === undefined ? undefined : toAccount(row)
}

/** Accounts registered on a phone number, at most `limit` of them (a household found by its phone). */
export async function findAccountsOfPhone (db: Kysely<DB>, phoneNumber: string, limit: number): Promise<Account[]> {
  const rows = await db.selectFrom('ussd_accounts').selectAll()
    .where('phone_number', '=', phoneNumber)
    .orderBy('created_at')
    .limit(limit)
    .execute()
  return rows.map(toAccount)
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
