import { Type, type Static } from '@sinclair/typebox'
import { DID_PATTERN, IsoTimestampSchema } from '@impact/schemas'

/** The W3C DID Core document a domain is served as, and the DID Resolution shapes around it. */

export const VerificationMethodSchema = Type.Object({
  id: Type.String(),
  type: Type.Literal('Multikey'),
  controller: Type.String({ pattern: DID_PATTERN }),
  publicKeyMultibase: Type.String()
})

export const ServiceSchema = Type.Object({
  id: Type.String(),
  type: Type.String(),
  serviceEndpoint: Type.String()
})

export const DidDocumentSchema = Type.Object({
  // Strings and one map (no anyOf here: the serializer would validate every item to pick a branch).
  '@context': Type.Array(Type.Unknown(), {
    description: 'https://www.w3.org/ns/did/v1, https://w3id.org/security/multikey/v1, then a map of the ixo terms'
  }),
  id: Type.String({ pattern: DID_PATTERN }),
  controller: Type.Array(Type.String()),
  alsoKnownAs: Type.Optional(Type.Array(Type.String())),
  verificationMethod: Type.Optional(Type.Array(VerificationMethodSchema)),
  authentication: Type.Optional(Type.Array(Type.String())),
  assertionMethod: Type.Optional(Type.Array(Type.String())),
  capabilityInvocation: Type.Optional(Type.Array(Type.String())),
  service: Type.Optional(Type.Array(ServiceSchema))
}, { description: 'W3C DID Core document (JSON-LD); platform links are services of type ixo:…' })
export type DidDocument = Static<typeof DidDocumentSchema>

export const DidDocumentMetadataSchema = Type.Object({
  created: Type.Optional(IsoTimestampSchema),
  updated: Type.Optional(IsoTimestampSchema),
  deactivated: Type.Optional(Type.Boolean()),
  versionId: Type.Optional(Type.String({ description: 'Version number of this document, from 1' })),
  nextUpdate: Type.Optional(IsoTimestampSchema),
  nextVersionId: Type.Optional(Type.String()),
  status: Type.Optional(Type.String({ description: 'Registry status of the domain in this version' })),
  verified: Type.Optional(Type.Boolean({ description: 'Passed governance verification' })),
  verifiedAt: Type.Optional(IsoTimestampSchema),
  type: Type.Optional(Type.String({ description: 'On-chain entity type' }))
})
export type DidDocumentMetadata = Static<typeof DidDocumentMetadataSchema>

export const RESOLUTION_ERRORS = [
  'invalidDid', 'notFound', 'methodNotSupported', 'representationNotSupported', 'invalidOptions'
] as const
export const DidResolutionMetadataSchema = Type.Object({
  contentType: Type.Optional(Type.String()),
  error: Type.Optional(Type.Union(RESOLUTION_ERRORS.map((e) => Type.Literal(e)))),
  errorMessage: Type.Optional(Type.String())
})

const resolutionContext = Type.Literal('https://w3id.org/did-resolution/v1')

/** A resolution that found a document (200, and 410 for a deactivated one). */
export const ResolutionResultSchema = Type.Object({
  '@context': resolutionContext,
  didDocument: DidDocumentSchema,
  didResolutionMetadata: DidResolutionMetadataSchema,
  didDocumentMetadata: DidDocumentMetadataSchema
})

/** A resolution that failed: no document, the error in didResolutionMetadata. */
export const ResolutionErrorSchema = Type.Object({
  '@context': resolutionContext,
  didDocument: Type.Null(),
  didResolutionMetadata: DidResolutionMetadataSchema,
  didDocumentMetadata: Type.Object({})
})
export type ResolutionResult = Static<typeof ResolutionResultSchema> | Static<typeof ResolutionErrorSchema>

export const ResolveParamsSchema = Type.Object({
  did: Type.String({ maxLength: 512, description: 'The DID (percent-encoding allowed)' })
})
export const ResolveQuerySchema = Type.Object({
  versionTime: Type.Optional(Type.String({ maxLength: 64, description: 'RFC 3339 time: the version in force then' })),
  versionId: Type.Optional(Type.String({ maxLength: 16, description: 'A versionId from earlier metadata' }))
})
