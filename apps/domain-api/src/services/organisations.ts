import type { Kysely } from 'kysely'
import { findReferences } from '../db/domain.repository.ts'
import type { DB } from '../db/types.ts'
import { DomainOrganisationInvalidError, onField } from '../errors.ts'
import { isOrganisationType } from './placement.ts'

/** An organisation that keys, accounts and hooks may be assigned to: an organisation domain that is not deactivated. */
export async function checkOrganisation (db: Kysely<DB>, did: string, field = '/organisation'): Promise<void> {
  const row = (await findReferences(db, [did])).get(did)
  const problem = row === undefined
    ? 'is not a domain of this registry'
    : !isOrganisationType(row.type)
        ? `is a ${row.type}, not an organisation (dao)`
        : row.status === 'deactivated' ? 'is deactivated' : undefined
  if (problem !== undefined) {
    throw onField(new DomainOrganisationInvalidError(`Organisation ${did} ${problem}`), field,
      'must be an organisation domain of this registry')
  }
}
