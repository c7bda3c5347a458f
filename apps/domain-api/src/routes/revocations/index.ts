import { Type } from '@sinclair/typebox'
import type { AuditTrail, FastifyPluginAsyncTypebox } from '@impact/service-kit'
import { readBearerToken } from '@impact/service-kit'
import { IsoTimestampSchema } from '@impact/schemas'
import { DomainAuthMissingError } from '../../errors.ts'
import { AuthHeadersSchema, errorResponses } from '../../schemas/security.ts'
import type { UcanRevocationService } from '../../services/ucan-revocations.ts'

export interface RevocationRoutesOptions { revocations: UcanRevocationService, audit: Pick<AuditTrail, 'record'> }

const RevocationSchema = Type.Object({
  ok: Type.Literal(true),
  cid: Type.String({ description: 'CID of the revoked UCAN' }),
  expiresAt: IsoTimestampSchema
})

export const revocationRoutes: FastifyPluginAsyncTypebox<RevocationRoutesOptions> = async (app, options) => {
  app.post('/v1/revocations', {
    schema: {
      tags: ['ucan'],
      security: [{ ucan: [] }],
      headers: AuthHeadersSchema,
      summary: 'Revoke a UCAN delegation',
      description: 'The bearer is a `ucan/revoke` invocation (X-Auth-Type: ucan) addressed to this registry: ' +
        'issued by the principal it names as `with`, with `nb.ucan` = the CID of the revoked UCAN, which it ' +
        'embeds as proof. Its signer must be an issuer in that UCAN\'s chain, or its audience renouncing it. ' +
        'From then on every invocation carrying the revoked UCAN is refused with 401 DOMAIN_UCAN_REVOKED. ' +
        'Revoking twice is harmless.',
      response: { 200: RevocationSchema, ...errorResponses(401, 403) }
    }
  }, async (request, reply) => {
    const token = readBearerToken(request.headers.authorization)
    const type = request.headers['x-auth-type']
    if (token === undefined || typeof type !== 'string' || type.trim().toLowerCase() !== 'ucan') {
      reply.header('www-authenticate', 'Bearer')
      throw new DomainAuthMissingError()
    }
    const revoked = await options.revocations.revoke(token, request.log)
    await options.audit.record({ action: 'delegation.revoked', subject: revoked.cid })
    return revoked
  })
}
