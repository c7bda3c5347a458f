import type { FastifyBaseLogger } from 'fastify'
import type { Kysely } from 'kysely'
import type { UcanVerifier } from '@impact/ucan'
import { insertUcanRevocation } from '../db/ucan-revocation.repository.ts'
import type { DB } from '../db/types.ts'
import { DomainRevocationNotAllowedError, DomainUcanInvalidError, DomainUcanNotGrantedError } from '../errors.ts'
import type { Clock } from './clock.ts'

export interface UcanRevocationServiceOptions {
  db: Kysely<DB>
  clock: Clock
  /** The verifier whose `isRevoked` reads what this service records. */
  verifier: UcanVerifier
}

/**
 * Revocations of UCANs presented to the registry (a user withdrawing what it delegated to the
 * oracle, or the oracle renouncing it). Recorded in the database, so every replica refuses the
 * revoked delegation, and every invocation carrying it, from the next request on.
 */
export function createUcanRevocationService (options: UcanRevocationServiceOptions) {
  const { db, clock, verifier } = options
  return {
    /** Verifies a `ucan/revoke` invocation and records it; the reason of a refusal is logged. */
    async revoke (token: string, log: FastifyBaseLogger) {
      const verdict = await verifier.verifyRevocation(token)
      if (verdict.error !== undefined) {
        log.info({ reason: verdict.error.reason }, 'UCAN revocation refused')
        if (verdict.error.reason === 'unauthorized') throw new DomainRevocationNotAllowedError()
        if (verdict.error.reason === 'wrong_ability') throw new DomainUcanNotGrantedError('ucan/revoke')
        throw new DomainUcanInvalidError()
      }
      const { cid, revoker, expiration } = verdict.ok
      const expiresAt = new Date(expiration * 1000)
      await insertUcanRevocation(db, { cid, revokedBy: revoker, revokedAt: clock(), expiresAt })
      log.info({ cid, revoker }, 'UCAN revoked')
      return { ok: true as const, cid, expiresAt: expiresAt.toISOString() }
    }
  }
}

export type UcanRevocationService = ReturnType<typeof createUcanRevocationService>
