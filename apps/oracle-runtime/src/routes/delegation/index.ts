import { Type } from '@sinclair/typebox'
import {
  DelegationStatusSchema,
  RevokeReplySchema,
  StoreDelegationReplySchema,
  StoreDelegationSchema
} from '@impact/schemas'
import type { AuditTrail, FastifyPluginAsyncTypebox } from '@impact/service-kit'
import type { UcanVerifier } from '@impact/ucan'
import type { Kysely } from 'kysely'
import type { Config } from '../../config.ts'
import { deleteDelegation, findDelegation, upsertDelegation } from '../../db/repositories/delegations.ts'
import { DelegationForbiddenError, DelegationInvalidError } from '../../errors.ts'
import { callerDid } from '../../plugins/ucan-auth.ts'
import { delegationPolicyDetail } from '../../services/authenticate.ts'
import type { Revocation, Revocations } from '../../services/revocations.ts'
import type { RevokedDelegation } from '../../services/user-delegations.ts'
import type { DB } from '../../db/types.ts'
import { protectedSchema } from '../../schemas/security.ts'

const REASONS: Record<string, string> = {
  malformed: 'not a base64 UCAN delegation',
  wrong_audience: 'not addressed to this oracle',
  expired: 'expired',
  not_yet_valid: 'not valid yet',
  no_expiry: 'it must expire',
  invalid_signature: 'signature does not verify',
  proof_not_embedded: 'a proof is not embedded',
  chain_misaligned: 'the proof chain is misaligned',
  chain_too_deep: 'the proof chain is too deep',
  unresolvable_did: 'the issuer\'s key could not be resolved'
}

export interface DelegationRoutesOptions {
  db: Kysely<DB>
  verifier: Pick<UcanVerifier, 'verifyDelegation'>
  revocations: Pick<Revocations, 'revoke'>
  config: Pick<Config, 'UCAN_DELEGATION_MAX_TTL_SECONDS'>
  /** Tells the plugins what was revoked (e.g. `platform` forwards it to domain-api); never fails the request. */
  onDelegationRevoked?: (revoked: { did: string, delegations: RevokedDelegation[] }) => Promise<void>
  audit: Pick<AuditTrail, 'record'>
}

/**
 * The user → oracle delegation used for downstream calls: stored per user, verified on the way in.
 * DELETE revokes: the stored delegation and the one the request presents (always the caller's own)
 * are refused from then on, on every replica, wherever they are sent.
 */
export const delegationRoutes: FastifyPluginAsyncTypebox<DelegationRoutesOptions> = async (app, options) => {
  const { db, verifier, revocations, config, audit } = options

  app.post('/delegation', {
    schema: protectedSchema('delegation', {
      summary: 'Store the caller\'s delegation to this oracle (issuer, audience and expiry are read from the token)',
      body: StoreDelegationSchema,
      response: {
        200: StoreDelegationReplySchema,
        400: Type.Ref('ErrorBody'),
        403: Type.Ref('ErrorBody')
      }
    })
  }, async (request) => {
    const verdict = await verifier.verifyDelegation(request.body.raw)
    if (verdict.error !== undefined) {
      const { reason } = verdict.error
      const policy = delegationPolicyDetail(reason, config.UCAN_DELEGATION_MAX_TTL_SECONDS)
      throw new DelegationInvalidError(REASONS[reason] ?? policy ?? 'rejected')
    }
    if (verdict.ok.issuer !== callerDid(request)) throw new DelegationForbiddenError()
    await upsertDelegation(db, request.body.raw, verdict.ok)
    await audit.record({
      action: 'delegation.stored',
      actor: verdict.ok.issuer,
      subject: verdict.ok.cid,
      details: { expiration: verdict.ok.expiration, abilities: verdict.ok.capabilities.map((c) => c.can) }
    })
    return { ok: true as const, expiration: verdict.ok.expiration }
  })

  app.get('/delegation', {
    schema: protectedSchema('delegation', {
      summary: 'Whether the caller has a valid stored delegation',
      response: { 200: DelegationStatusSchema }
    })
  }, async (request) => {
    const stored = await findDelegation(db, callerDid(request))
    if (stored === undefined) return { authorized: false }
    return {
      authorized: stored.expiration > Date.now() / 1000,
      expiration: stored.expiration,
      capabilities: stored.capabilities
    }
  })

  app.delete('/delegation', {
    schema: protectedSchema('delegation', {
      summary: 'Revoke the caller\'s delegation: the stored one and the one sent with this request',
      response: { 200: RevokeReplySchema }
    })
  }, async (request) => {
    const did = callerDid(request)
    const revoked: Revocation[] = []
    const tokens = new Map<string, RevokedDelegation>()
    const stored = await findDelegation(db, did)
    if (stored !== undefined) {
      revoked.push({ cid: stored.cid, did, expiration: stored.expiration })
      tokens.set(stored.cid, { raw: stored.raw, cid: stored.cid })
    }
    const presented = request.auth?.delegation
    if (presented !== undefined) {
      revoked.push({ cid: presented.grant.cid, did, expiration: presented.grant.expiration })
      tokens.set(presented.grant.cid, { raw: presented.raw, cid: presented.grant.cid })
    }
    // Revoked before it is forgotten: a failure in between leaves it stored and refused, never usable.
    await revocations.revoke(revoked)
    await deleteDelegation(db, did)
    await audit.record({ action: 'delegation.revoked', actor: did, details: { cids: revoked.map((r) => r.cid) } })
    if (tokens.size > 0) await options.onDelegationRevoked?.({ did, delegations: [...tokens.values()] })
    return { ok: true as const }
  })
}
