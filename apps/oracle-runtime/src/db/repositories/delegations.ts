import type { Capability } from '@impact/schemas'
import type { Kysely } from 'kysely'
import type { DelegationGrant } from '@impact/ucan'
import type { DB } from '../types.ts'

export interface StoredDelegation { raw: string, cid: string, expiration: number, capabilities: Capability[] }

/** Stores what was derived from the verified token, never what the client claimed about it. */
export async function upsertDelegation (db: Kysely<DB>, raw: string, grant: DelegationGrant): Promise<void> {
  const values = {
    raw,
    audience: grant.audience,
    expiration: grant.expiration,
    capabilities: JSON.stringify(grant.capabilities),
    cid: grant.cid,
    updated_at: new Date()
  }
  await db.insertInto('oracle_delegations').values({ did: grant.issuer, ...values })
    .onConflict((oc) => oc.column('did').doUpdateSet(values))
    .execute()
}

export async function findDelegation (db: Kysely<DB>, did: string): Promise<StoredDelegation | undefined> {
  const row = await db.selectFrom('oracle_delegations').select(['raw', 'cid', 'expiration', 'capabilities'])
    .where('did', '=', did).executeTakeFirst()
  if (row === undefined) return undefined
  return { raw: row.raw, cid: row.cid, expiration: Number(row.expiration), capabilities: row.capabilities }
}

export async function deleteDelegation (db: Kysely<DB>, did: string): Promise<void> {
  await db.deleteFrom('oracle_delegations').where('did', '=', did).execute()
}
