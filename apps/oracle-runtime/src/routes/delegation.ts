import { Type } from '@sinclair/typebox'
import { DelegationStatusSchema, RevokeReplySchema, StoreDelegationReplySchema, StoreDelegationSchema } from '@impact/schemas'
import type { FastifyPluginAsyncTypebox } from '@impact/service-kit'
import { deleteDelegation, findDelegation, upsertDelegation } from '../db/repositories/delegations.ts'
import { DelegationForbiddenError, DelegationInvalidError } from '../errors.ts'
import { AUTH_ERRORS, SECURITY } from './common.ts'

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

/** The user → oracle delegation used for downstream calls: stored per user, verified on the way in. */
export const delegationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, verifier } = app.runtime

  app.post('/delegation', {
    schema: {
      tags: ['delegation'],
      summary: 'Store the caller\'s delegation to this oracle (issuer, audience and expiry are read from the token)',
      security: SECURITY,
      body: StoreDelegationSchema,
      response: { 200: StoreDelegationReplySchema, 400: Type.Ref('ErrorBody'), 403: Type.Ref('ErrorBody'), ...AUTH_ERRORS }
    }
  }, async (request) => {
    const verdict = await verifier.verifyDelegation(request.body.raw)
    if (verdict.error !== undefined) throw new DelegationInvalidError(REASONS[verdict.error.reason] ?? 'rejected')
    if (verdict.ok.issuer !== request.auth?.did) throw new DelegationForbiddenError()
    await upsertDelegation(db, request.body.raw, verdict.ok)
    return { ok: true as const, expiration: verdict.ok.expiration }
  })

  app.get('/delegation', {
    schema: { tags: ['delegation'], summary: 'Whether the caller has a valid stored delegation', security: SECURITY, response: { 200: DelegationStatusSchema, ...AUTH_ERRORS } }
  }, async (request) => {
    const stored = await findDelegation(db, request.auth?.did as string)
    if (stored === undefined) return { authorized: false }
    return { authorized: stored.expiration > Date.now() / 1000, expiration: stored.expiration, capabilities: stored.capabilities }
  })

  app.delete('/delegation', {
    schema: { tags: ['delegation'], summary: 'Forget the caller\'s stored delegation', security: SECURITY, response: { 200: RevokeReplySchema, ...AUTH_ERRORS } }
  }, async (request) => {
    await deleteDelegation(db, request.auth?.did as string)
    return { ok: true as const }
  })
}
