import { randomUUID } from 'node:crypto'
import { sql, type Kysely } from 'kysely'
import { inTransaction } from '@impact/persistence'
import type { DB } from '../types.ts'

export interface Claim { claimId: string, amount: number, status: 'outstanding' | 'paid', createdAt: string }

/** Opens an account with the starting grant the first time a user is seen. */
export async function ensureAccount (db: Kysely<DB>, did: string, initialGrant: number): Promise<number> {
  const inserted = await db.insertInto('oracle_credit_accounts').values({ did, balance: initialGrant })
    .onConflict((oc) => oc.column('did').doNothing()).returning('balance').executeTakeFirst()
  if (inserted !== undefined) {
    if (initialGrant > 0) {
      await db.insertInto('oracle_credit_ledger')
        .values({ did, delta: initialGrant, reason: 'initial grant', reference: null })
        .execute()
    }
    return Number(inserted.balance)
  }
  const row = await db.selectFrom('oracle_credit_accounts').select('balance').where('did', '=', did)
    .executeTakeFirstOrThrow()
  return Number(row.balance)
}

/** Adds credits (operator grant, settled claim) and records why; returns the new balance. */
export async function addCredits (
  db: Kysely<DB>,
  did: string,
  amount: number,
  reason: string,
  reference: string | null
): Promise<number> {
  return await inTransaction(db, async (trx) => {
    const row = await trx.insertInto('oracle_credit_accounts').values({ did, balance: amount })
      .onConflict((oc) => oc.column('did').doUpdateSet({
        balance: sql`oracle_credit_accounts.balance + excluded.balance`,
        updated_at: new Date()
      }))
      .returning('balance').executeTakeFirstOrThrow()
    await trx.insertInto('oracle_credit_ledger').values({ did, delta: amount, reason, reference }).execute()
    return Number(row.balance)
  })
}

/** Charges a turn; never below zero (two turns racing on the last credit cost at most one extra). */
export async function chargeCredits (db: Kysely<DB>, did: string, amount: number, reference: string): Promise<number> {
  return await inTransaction(db, async (trx) => {
    const before = await trx.selectFrom('oracle_credit_accounts').select('balance').where('did', '=', did)
      .forUpdate()
      .executeTakeFirst()
    if (before === undefined) return 0
    const charged = Math.min(Number(before.balance), amount)
    if (charged === 0) return Number(before.balance)
    const row = await trx.updateTable('oracle_credit_accounts')
      .set({ balance: sql`balance - ${charged}`, updated_at: new Date() })
      .where('did', '=', did).returning('balance').executeTakeFirstOrThrow()
    await trx.insertInto('oracle_credit_ledger')
      .values({ did, delta: -charged, reason: 'message', reference })
      .execute()
    return Number(row.balance)
  })
}

export async function outstandingClaims (db: Kysely<DB>, did: string): Promise<Claim[]> {
  const rows = await db.selectFrom('oracle_credit_claims').selectAll()
    .where('did', '=', did)
    .where('status', '=', 'outstanding')
    .orderBy('created_at')
    .execute()
  return rows.map((r) => ({
    claimId: r.id,
    amount: Number(r.amount),
    status: r.status,
    createdAt: new Date(r.created_at).toISOString()
  }))
}

/** The user's outstanding claims, raising one for a top-up when there is none. */
export async function claimsToPay (db: Kysely<DB>, did: string, topUp: number): Promise<Claim[]> {
  const open = await outstandingClaims(db, did)
  if (open.length > 0) return open
  await db.insertInto('oracle_credit_claims')
    .values({ id: `claim-${randomUUID()}`, did, amount: topUp, status: 'outstanding' })
    .execute()
  return await outstandingClaims(db, did)
}

/** Marks a claim paid and credits its amount, once: settling it again changes nothing. */
export async function settleClaim (
  db: Kysely<DB>,
  claimId: string
): Promise<{ claimId: string, did: string, amount: number, balance: number } | undefined> {
  return await inTransaction(db, async (trx) => {
    const claim = await trx.selectFrom('oracle_credit_claims').selectAll().where('id', '=', claimId)
      .forUpdate()
      .executeTakeFirst()
    if (claim === undefined) return undefined
    const amount = Number(claim.amount)
    if (claim.status === 'paid') {
      const account = await trx.selectFrom('oracle_credit_accounts').select('balance')
        .where('did', '=', claim.did)
        .executeTakeFirst()
      return { claimId, did: claim.did, amount, balance: Number(account?.balance ?? 0) }
    }
    await trx.updateTable('oracle_credit_claims')
      .set({ status: 'paid', settled_at: new Date() })
      .where('id', '=', claimId)
      .execute()
    const row = await trx.insertInto('oracle_credit_accounts').values({ did: claim.did, balance: amount })
      .onConflict((oc) => oc.column('did').doUpdateSet({
        balance: sql`oracle_credit_accounts.balance + excluded.balance`,
        updated_at: new Date()
      }))
      .returning('balance').executeTakeFirstOrThrow()
    await trx.insertInto('oracle_credit_ledger')
      .values({ did: claim.did, delta: amount, reason: 'claim settled', reference: claimId })
      .execute()
    return { claimId, did: claim.did, amount, balance: Number(row.balance) }
  })
}
