import type { Kysely, Transaction } from 'kysely'
import type { DB } from './types.ts'

type Db = Kysely<DB> | Transaction<DB>

/** Those of `dids` that have a proposal whose electorate (voters or vetoers) includes `account`. */
export async function findReviewedDomains (db: Db, account: string, dids: string[]): Promise<Set<string>> {
  if (dids.length === 0) return new Set()
  const rows = await db.selectFrom('verification_electorates as e')
    .innerJoin('verification_proposals as p', 'p.id', 'e.proposal_id')
    .select('p.domain_did').distinct()
    .where('e.account', '=', account)
    .where('p.domain_did', 'in', [...new Set(dids)])
    .execute()
  return new Set(rows.map((row) => row.domain_did))
}

export async function findAccountOrganisation (db: Db, account: string): Promise<string | null> {
  const row = await db.selectFrom('account_organisations').select('organisation_did')
    .where('account', '=', account).executeTakeFirst()
  return row?.organisation_did ?? null
}

export async function assignAccountOrganisation (
  db: Db,
  account: string,
  organisation: string,
  assigned: { by: string, at: Date }
): Promise<void> {
  await db.insertInto('account_organisations')
    .values({ account, organisation_did: organisation, assigned_by: assigned.by, assigned_at: assigned.at })
    .onConflict((oc) => oc.column('account').doNothing())
    .execute()
}

/** Whether the account has a live key bound to an organisation other than `organisation`. */
export async function hasKeyOfOtherOrganisation (db: Db, account: string, organisation: string): Promise<boolean> {
  const row = await db.selectFrom('api_keys').select('id')
    .where('account', '=', account).where('revoked_at', 'is', null)
    .where('organisation_did', 'is not', null).where('organisation_did', '<>', organisation)
    .executeTakeFirst()
  return row !== undefined
}
