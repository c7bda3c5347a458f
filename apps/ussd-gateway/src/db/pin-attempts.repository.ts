import { sql, type Kysely } from 'kysely'
import { LOCK_REASON_PIN_ATTEMPTS, toAccount, type Account } from './accounts.repository.ts'
import type { AccountStatus, DB } from './types.ts'

/** How many wrong PINs lock an account, and for how long: `baseMs`, doubled per lockout, at most `maxMs`. */
export interface LockoutPolicy {
  maxAttempts: number
  baseMs: number
  maxMs: number
}

/** The next lockout's cool-down, from the row's count of lockouts so far (the power capped so it cannot overflow). */
const coolDown = (policy: LockoutPolicy) => {
  const doubled = sql`${policy.baseMs}::float8 * power(2, least(lockouts, 40))`
  return sql`least(${doubled}, ${policy.maxMs}::float8) * interval '1 millisecond'`
}

/**
 * Counts a PIN attempt before the PIN is compared, in one conditional statement, so parallel attempts cannot
 * exceed `maxAttempts`: the one taking the last place locks at once (a right PIN lifts it, settleRightPin).
 * Resolves the account as counted, or undefined when no place was left (locked or unknown).
 */
export async function chargePinAttempt (
  db: Kysely<DB>,
  customerId: string,
  policy: LockoutPolicy,
  now: Date
): Promise<Account | undefined> {
  const attempt = sql<number>`case when status = 'locked' then 1 else pin_attempts + 1 end`
  const locks = sql<boolean>`${attempt} >= ${policy.maxAttempts}`
  const row = await db.updateTable('ussd_accounts')
    .set({
      pin_attempts: attempt,
      status: sql<AccountStatus>`case when ${locks} then 'locked' else 'active' end`,
      lockouts: sql<number>`case when ${locks} then lockouts + 1 else lockouts end`,
      locked_reason: sql<string | null>`case when ${locks} then ${LOCK_REASON_PIN_ATTEMPTS} end`,
      locked_at: sql<Date | null>`case when ${locks} then ${now}::timestamptz end`,
      locked_until: sql<Date | null>`case when ${locks} then ${now}::timestamptz + ${coolDown(policy)} end`,
      updated_at: sql<Date>`now()`
    })
    .where('customer_id', '=', customerId)
    .where((eb) => eb.or([
      eb.and([eb('status', '=', 'active'), eb('pin_attempts', '<', policy.maxAttempts)]),
      eb.and([eb('status', '=', 'locked'), eb('locked_until', '<=', now)])
    ]))
    .returningAll()
    .executeTakeFirst()
  return row === undefined ? undefined : toAccount(row)
}

/**
 * A right PIN after `chargePinAttempt` clears the counts and lifts a lock placed since `chargedAt` (in a
 * serial order this PIN came first), resealing the PIN when asked; false when locked before or PIN replaced.
 */
export async function settleRightPin (
  db: Kysely<DB>,
  customerId: string,
  proof: { pinVersion: number, chargedAt: Date, reseal?: { pinRecord: string, pinKeyId: string } | undefined }
): Promise<boolean> {
  const result = await db.updateTable('ussd_accounts')
    .set({
      pin_attempts: 0,
      lockouts: 0,
      status: 'active',
      locked_reason: null,
      locked_at: null,
      locked_until: null,
      ...(proof.reseal !== undefined ? { pin_record: proof.reseal.pinRecord, pin_key_id: proof.reseal.pinKeyId } : {}),
      updated_at: sql<Date>`now()`
    })
    .where('customer_id', '=', customerId)
    .where('pin_version', '=', proof.pinVersion)
    .where((eb) => eb.or([
      eb('status', '=', 'active'),
      eb.and([eb('locked_reason', '=', LOCK_REASON_PIN_ATTEMPTS), eb('locked_at', '>=', proof.chargedAt)])
    ]))
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

/** Takes back an attempt that compared nothing (PIN queue full, record unopenable), and any lock it placed. */
export async function refundPinAttempt (db: Kysely<DB>, charged: Account): Promise<void> {
  const update = db.updateTable('ussd_accounts').where('customer_id', '=', charged.customerId)
  if (charged.status === 'locked' && charged.lockedUntil !== null) {
    await update
      .set({
        pin_attempts: sql<number>`greatest(pin_attempts - 1, 0)`,
        lockouts: sql<number>`greatest(lockouts - 1, 0)`,
        status: 'active',
        locked_reason: null,
        locked_at: null,
        locked_until: null,
        updated_at: sql<Date>`now()`
      })
      .where('status', '=', 'locked')
      .where('locked_until', '=', charged.lockedUntil)
      .execute()
  } else {
    await update
      .set({ pin_attempts: sql<number>`greatest(pin_attempts - 1, 0)`, updated_at: sql<Date>`now()` })
      .where('status', '=', 'active')
      .where('pin_attempts', '>', 0)
      .execute()
  }
}
