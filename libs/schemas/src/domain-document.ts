import { Type, type Static } from '@sinclair/typebox'
import { didField } from './domain-common.ts'

/** What registration adds to a domain's DID document (the DID Core rendering of it is domain-api's own). */

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
