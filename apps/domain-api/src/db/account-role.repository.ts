import type { Kysely, Transaction } from 'kysely'
import { inTransaction } from '@impact/persistence'
import type { DB } from './types.ts'

type Db = Kysely<DB> | Transaction<DB>

export async function listAccountRoles (db: Db, account: string): Promise<string[]> {
  const rows = await db.selectFrom('account_roles').select('role').where('account', '=', account)
    .orderBy('role').execute()
  return rows.map((r) => r.role)
}

/** Replaces an account's roles with `roles`; those it keeps keep their original grant. */
export async function replaceAccountRoles (
  db: Kysely<DB>,
  account: string,
  roles: string[],
  grant: { by: string, at: Date }
): Promise<void> {
  await inTransaction(db, async (trx) => {
    let removal = trx.deleteFrom('account_roles').where('account', '=', account)
    if (roles.length > 0) removal = removal.where('role', 'not in', roles)
    await removal.execute()
    if (roles.length === 0) return
    await trx.insertInto('account_roles')
      .values(roles.map((role) => ({ account, role, granted_by: grant.by, granted_at: grant.at })))
      .onConflict((oc) => oc.columns(['account', 'role']).doNothing())
      .execute()
  })
}
