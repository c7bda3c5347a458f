import type { Kysely } from 'kysely'
import { findDelegation, type StoredDelegation } from '../db/repositories/delegations.ts'
import type { DB } from '../db/types.ts'
import type { Revocations } from './revocations.ts'

export type { StoredDelegation } from '../db/repositories/delegations.ts'

/** A delegation the user revoked at the oracle, as plugins hear of it. */
export interface RevokedDelegation { raw: string, cid: string }

/**
 * The users' stored delegations (user → oracle, `POST /delegation`) as plugins read them: the proofs of
 * the calls the oracle makes for a user. A revoked one is never handed out; an expired one is, so the
 * caller can tell the user it expired rather than that it is missing.
 */
export function createUserDelegations (options: { db: Kysely<DB>, revocations: Pick<Revocations, 'isRevoked'> }) {
  return {
    async of (did: string): Promise<StoredDelegation | undefined> {
      const stored = await findDelegation(options.db, did)
      if (stored === undefined || await options.revocations.isRevoked([stored.cid])) return undefined
      return stored
    }
  }
}

export type UserDelegations = ReturnType<typeof createUserDelegations>
