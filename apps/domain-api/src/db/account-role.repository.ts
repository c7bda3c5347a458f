import { sql, type Kysely, type Transaction } from 'kysely'
import { inTransaction } from '@impact/persistence'
import type { DB } from './types.ts'

type Db = Kysely<DB> | Transaction<DB>

/** An account's roles and organisation in one round trip (every authentication that misses the cache asks). */
export async function findAccountProfile (db: Db, account: string) {
  const row = await db.selectNoFrom((eb) => [
    eb.selectFrom('account_organisations').select('organisation_did').where('account', '=', account)
      .as('organisation'),
    sql<string[]>`array(select role from account_roles where account = ${account} order by role)`.as('roles')
  ]).executeTakeFirstOrThrow()
  return { roles: row.roles, organisation: row.organisation ?? null }
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
