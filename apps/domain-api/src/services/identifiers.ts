import type { Kysely } from 'kysely'
import { findLatestVersion, findVersion, type VersionRow } from '../db/version.repository.ts'
import type { DB } from '../db/types.ts'
import { ENTITY_DID_PATTERN } from '@impact/schemas'
import type { ResolutionResult } from '../schemas/did-document.ts'
import type { Clock } from './clock.ts'
import { buildDocument, buildMetadata, didMethodOf, isDid, RESOLUTION_CONTEXT } from './did-document.ts'
import { isDue, settleDomain } from './lifecycle.ts'

/**
 * DID resolution of the registry's domains (W3C DID Resolution): the current document or an
 * earlier version, with the HTTP status the HTTP(S) binding gives each outcome.
 */

export const HOSTED_METHOD = 'ixo'
const ENTITY_DID = new RegExp(ENTITY_DID_PATTERN)
const VERSION_ID = /^[1-9][0-9]{0,8}$/
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/i

export type ResolutionError = NonNullable<ResolutionResult['didResolutionMetadata']['error']>
export interface Resolution { statusCode: 200 | 400 | 404 | 406 | 410 | 501, result: ResolutionResult }
export interface ResolveOptions { versionId?: string | undefined, versionTime?: string | undefined }

const STATUS_OF: Record<ResolutionError, Resolution['statusCode']> = {
  invalidDid: 400,
  invalidOptions: 400,
  notFound: 404,
  representationNotSupported: 406,
  methodNotSupported: 501
}

/** A resolution that failed: no document, the error in the resolution metadata. */
export function failure (error: ResolutionError, message: string): Resolution {
  return {
    statusCode: STATUS_OF[error],
    result: {
      '@context': RESOLUTION_CONTEXT,
      didDocument: null,
      didResolutionMetadata: { error, errorMessage: message },
      didDocumentMetadata: {}
    }
  }
}

export function createIdentifierService (
  { db, clock }: { db: Kysely<DB>, clock: Clock }
) {
  /** The latest version, after settling what is due (an expiry, a closed vote) so it is included. */
  async function latest (did: string): Promise<VersionRow | undefined> {
    const now = clock()
    const found = await findLatestVersion(db, did)
    if (found === undefined) return undefined
    const { due } = found
    if (!isDue(due, { status: due.p_status, deadline: due.p_deadline }, now)) return found.version
    await settleDomain(db, did, now)
    return (await findLatestVersion(db, did))?.version
  }

  return {
    async resolve (did: string, options: ResolveOptions = {}): Promise<Resolution> {
      if (!isDid(did)) return failure('invalidDid', 'Not a DID (did:<method>:<method-specific id>)')
      if (didMethodOf(did) !== HOSTED_METHOD) {
        return failure('methodNotSupported', `This registry resolves did:${HOSTED_METHOD} only`)
      }
      if (options.versionId !== undefined && !VERSION_ID.test(options.versionId)) {
        return failure('invalidOptions', 'versionId must be a version number (1, 2, …)')
      }
      const versionTime = options.versionTime !== undefined ? new Date(options.versionTime) : undefined
      if (versionTime !== undefined && (!RFC3339.test(options.versionTime!) || Number.isNaN(versionTime.getTime()))) {
        return failure('invalidOptions', 'versionTime must be an RFC 3339 date-time')
      }
      if (!ENTITY_DID.test(did)) return failure('notFound', `${did} is not registered here`)
      const current = await latest(did)
      if (current === undefined) return failure('notFound', `${did} is not registered here`)
      const found = options.versionId === undefined && versionTime === undefined
        ? { current, next: undefined }
        : await findVersion(db, did, {
          versionId: options.versionId !== undefined ? Number(options.versionId) : undefined,
          versionTime
        })
      if (found === undefined) return failure('notFound', `${did} has no such version`)
      const didDocumentMetadata = buildMetadata(found.current, found.next)
      return {
        statusCode: didDocumentMetadata.deactivated === true ? 410 : 200,
        result: {
          '@context': RESOLUTION_CONTEXT,
          didDocument: buildDocument(did, found.current),
          didResolutionMetadata: {},
          didDocumentMetadata
        }
      }
    }
  }
}

export type IdentifierService = ReturnType<typeof createIdentifierService>
