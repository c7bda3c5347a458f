import type { FastifyPluginAsyncTypebox } from '@impact/service-kit'
import {
  ResolutionErrorSchema, ResolutionResultSchema, ResolveParamsSchema, ResolveQuerySchema
} from '../../schemas/did-document.ts'
import { failure, type IdentifierService, type Resolution } from '../../services/identifiers.ts'
import { negotiate, RESOLUTION_MEDIA_TYPES } from './negotiate.ts'

export interface IdentifierRoutesOptions { identifiers: IdentifierService }

const resultContent = Object.fromEntries(RESOLUTION_MEDIA_TYPES.map((type) => [
  type.split(';')[0]!, { schema: ResolutionResultSchema }
]))

/**
 * The DID Resolution HTTP(S) binding, as a Universal Resolver driver serves it: public, no key.
 * Every outcome, errors included, is a resolution result; the status follows the binding.
 */
export const identifierRoutes: FastifyPluginAsyncTypebox<IdentifierRoutesOptions> = async (app, { identifiers }) => {
  app.get('/1.0/identifiers/:did', {
    // Malformed options are answered as resolution errors, not as the platform's error body.
    attachValidation: true,
    schema: {
      tags: ['identifiers'],
      summary: 'Resolve a DID to its DID document (DID Resolution HTTP(S) binding)',
      description: 'Public. did:ixo:entity DIDs of this registry. `versionTime` (RFC 3339) or `versionId` ' +
        'resolve an earlier version (`nextUpdate`/`nextVersionId` name the one after). Errors: 400 `invalidDid` or ' +
        '`invalidOptions`, 404 `notFound`, 406 `representationNotSupported`, 410 deactivated (the document with ' +
        '`deactivated: true`), 501 `methodNotSupported` (a DID method other than did:ixo). Accept: ' +
        'application/did+ld+json, application/ld+json (either with the did-resolution profile or without), ' +
        'application/json, */*.',
      params: ResolveParamsSchema,
      querystring: ResolveQuerySchema,
      response: {
        200: { description: 'The resolution result', content: resultContent },
        400: ResolutionErrorSchema,
        404: ResolutionErrorSchema,
        406: ResolutionErrorSchema,
        410: { description: 'Deactivated: the last document, `deactivated: true`', content: resultContent },
        501: ResolutionErrorSchema
      }
    }
  }, async (request, reply) => {
    const mediaType = negotiate(request.headers.accept)
    let resolution: Resolution
    if (mediaType === undefined) {
      resolution = failure('representationNotSupported', `Accept one of ${RESOLUTION_MEDIA_TYPES.join(', ')}`)
    } else if (request.validationError !== undefined) {
      const params = request.validationError.validationContext === 'params'
      resolution = failure(params ? 'invalidDid' : 'invalidOptions', request.validationError.message)
    } else {
      resolution = await identifiers.resolve(request.params.did, request.query)
    }
    const contentType = mediaType ?? RESOLUTION_MEDIA_TYPES[0]
    if (resolution.result.didDocument !== null) resolution.result.didResolutionMetadata.contentType = contentType
    reply.code(resolution.statusCode).header('content-type', contentType)
    return resolution.result
  })
}
