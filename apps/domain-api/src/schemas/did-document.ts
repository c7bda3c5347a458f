import { Type, type Static } from '@sinclair/typebox'
import { DID_PATTERN, IsoTimestampSchema } from '@impact/schemas'
import { didField } from './common.ts'

/** What registration adds to a domain's DID document, and the DID Resolution shapes it is served in. */

export const FRAGMENT_PATTERN = '^[A-Za-z][A-Za-z0-9_-]{0,63}$'
/** An Ed25519 public key as a multikey: base58btc (`z`) of 0xed 0x01 and the 32 key bytes. */
export const ED25519_MULTIKEY_PATTERN = '^z6Mk[1-9A-HJ-NP-Za-km-z]{44}$'
export const KEY_PURPOSES = ['authentication', 'assertionMethod', 'capabilityInvocation'] as const
/** Service types the document's context defines; any other type must be an absolute https IRI. */
export const SERVICE_TYPES = ['LinkedDomains', 'DIDCommMessaging'] as const
export const MAX_DOCUMENT_ENTRIES = 20

const fragment = (description: string) => Type.String({ pattern: FRAGMENT_PATTERN, description })
const uri = (description: string) => Type.String({ format: 'uri', maxLength: 2048, description })

export const DeviceKeySchema = Type.Object({
  id: fragment('Fragment of the key in the document: the method is <did>#<id>'),
  publicKeyMultibase: Type.String({
    pattern: ED25519_MULTIKEY_PATTERN,
    description: 'Ed25519 public key as a multikey (base58btc of 0xed01 + 32 bytes), e.g. a cooking device\'s key',
    examples: ['z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK']
  }),
  purposes: Type.Optional(Type.Array(Type.Union(KEY_PURPOSES.map((p) => Type.Literal(p))), {
    minItems: 1,
    uniqueItems: true,
    description: 'Verification relationships of the key (default: authentication and assertionMethod)'
  }))
}, { additionalProperties: false })
export type DeviceKey = Static<typeof DeviceKeySchema>

export const ServiceInputSchema = Type.Object({
  id: fragment('Fragment of the service in the document: the service is <did>#<id>'),
  type: Type.Union([
    Type.Union(SERVICE_TYPES.map((t) => Type.Literal(t))),
    Type.String({ pattern: '^https://[^\\s]+$', maxLength: 512 })
  ], { description: 'LinkedDomains, DIDCommMessaging, or an absolute https IRI naming the service type' }),
  serviceEndpoint: uri('Where the service is reached')
}, { additionalProperties: false })
export type ServiceInput = Static<typeof ServiceInputSchema>

export const LinksSchema = Type.Object({
  parent: Type.Optional(didField('DID of the parent entity (e.g. the project a device belongs to)')),
  organisation: Type.Optional(didField('DID of the organisation that runs the entity'))
}, { additionalProperties: false, description: 'Platform links; the protocol link is the class' })

/** The document fields of a create or update request (each optional; an update replaces the ones it sends). */
export const documentFields = {
  deviceKeys: Type.Optional(Type.Array(DeviceKeySchema, {
    maxItems: MAX_DOCUMENT_ENTRIES,
    description: 'Keys of the entity itself (e.g. a device), listed as verification methods of its DID'
  })),
  services: Type.Optional(Type.Array(ServiceInputSchema, { maxItems: MAX_DOCUMENT_ENTRIES })),
  alsoKnownAs: Type.Optional(Type.Array(uri('Another identifier of the same entity'), {
    maxItems: MAX_DOCUMENT_ENTRIES,
    uniqueItems: true
  })),
  links: Type.Optional(LinksSchema)
}

/** As stored in domains.document and in every version snapshot. */
export const DomainDocumentFieldsSchema = Type.Object(documentFields)
export type DomainDocumentFields = Static<typeof DomainDocumentFieldsSchema>

// ── DID Core document ────────────────────────────────────────────────────────────────────

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
