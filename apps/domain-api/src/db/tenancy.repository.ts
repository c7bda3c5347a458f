import { sql, type Kysely, type Transaction } from 'kysely'
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

/** What an account already has in the registry: the organisations of its live keys, and whether it controls any. */
export async function accountFootprint (db: Db, account: string) {
  const keys = await db.selectFrom('api_keys').select('organisation_did').distinct()
    .where('account', '=', account).where('revoked_at', 'is', null).execute()
  const controlled = await db.selectFrom('domains').select('did')
    .where(sql<boolean>`controllers @> array[${account}]::text[]`).limit(1).executeTakeFirst()
  return { keyOrganisations: keys.map((k) => k.organisation_did), controls: controlled !== undefined }
}
