import { Type, type Static } from '@sinclair/typebox'
import { DidSchema, IsoTimestampSchema, Nullable } from './common.ts'
import { ErrorDetailSchema } from './errors.ts'
import { CursorPageQuerySchema, CursorPageSchema } from './pagination.ts'
import { documentFields } from './domain-document.ts'
import {
  accountField, ActorSchema, CallerRefSchema, controllersField, didField, EntityDidSchema, NullableTimestampSchema,
  UuidSchema
} from './domain-common.ts'

/** The domain registry's domain shapes (apps/domain-api), shared with its clients (libs/platform-client). */

export const DOMAIN_STATUSES = [
  'draft',
  'verification_submitted',
  'verified',
  'changed',
  'rejected',
  'revoked',
  'expired',
  'deactivated'
] as const
export const DomainStatusSchema = Type.Union(
  DOMAIN_STATUSES.map((s) => Type.Literal(s)),
  {
    description:
      'draft → verification_submitted → verified | rejected; changed: reviewed content changed after ' +
        'verification (not usable until a new verification passes); revoked: verification revoked by governance; ' +
        'expired once validUntil passes; deactivated by a controller'
  }
)
export type DomainStatus = Static<typeof DomainStatusSchema>

/** The part of a domain's metadata only its organisation, controllers, registrant and reviewers read. */
export const PRIVATE_METADATA_KEY = 'private'

// Typed as any JSON object: the schema names only `private`, and a client's own keys are as welcome.
export const MetadataSchema = Type.Unsafe<Record<string, unknown>>(Type.Object(
  {
    [PRIVATE_METADATA_KEY]: Type.Optional(Type.Object({}, {
      additionalProperties: true,
      description: 'Private metadata: shown only to callers of the domain\'s organisation, its controllers and ' +
        'registrant, platform admins and governance (compliance, and the voters of its proposals); everyone else ' +
        'gets the metadata without this key. Never in DID documents, events or webhooks'
    }))
  },
  {
    additionalProperties: true,
    maxProperties: 100,
    description: 'Domain settings, free-form JSON (at most 16 KiB), e.g. { "name": "Clean Cooking Project" }; the ' +
      'object under `private` is private metadata, everything else public',
    examples: [{ name: 'Clean Cooking Project', private: { contactPhone: '+254700000000' } }]
  }
))

export const ExternalIdSchema = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: '^[\\x21-\\x7E]+$',
  description: 'An identifier from outside the registry, e.g. a device\'s serial number: printable ASCII without ' +
    'spaces, unique per type within the domain\'s organisation (within its class when it has none); a second ' +
    'registration is refused with 409',
  examples: ['SN-2026-000123']
})

export const CreateDomainBodySchema = Type.Object(
  {
    type: Type.String({
      minLength: 1,
      maxLength: 64,
      description:
        'Entity type, case-insensitive: Organisation, Project, Asset, Device, Protocol, Oracle, Request, or an ' +
          'on-chain type (dao, asset/device, protocol/claim…)',
      examples: ['Project']
    }),
    class: Type.Optional(didField('DID of the protocol that defines the entity class')),
    protocol: Type.Optional(
      didField('Same as class (the docs sample sends it under this name); if both are sent they must be equal')
    ),
    metadata: Type.Optional(MetadataSchema),
    validFrom: Type.Optional(IsoTimestampSchema),
    validUntil: Type.Optional(IsoTimestampSchema),
    onBehalfOf: Type.Optional(
      accountField(
        'Register for this controller instead of the calling account (role ' +
          "registrar): e.g. a field agent registering a household's stove. The caller is recorded as creator"
      )
    ),
    controllers: Type.Optional(
      controllersField({
        description: 'Controllers in addition to the calling account (or to onBehalfOf)'
      })
    ),
    externalId: Type.Optional(ExternalIdSchema),
    ...documentFields
  },
  { additionalProperties: false }
)
export type CreateDomainBody = Static<typeof CreateDomainBodySchema>

export const UpdateDomainBodySchema = Type.Object({
  metadata: Type.Optional(MetadataSchema),
  validFrom: Type.Optional(Nullable(IsoTimestampSchema)),
  validUntil: Type.Optional(Nullable(IsoTimestampSchema)),
  controllers: Type.Optional(controllersField({ minItems: 1, description: 'The full new list of controllers' })),
  ...documentFields
}, { additionalProperties: false, minProperties: 1 })
export type UpdateDomainBody = Static<typeof UpdateDomainBodySchema>

export const DeactivateBodySchema = Type.Object({
  reason: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 }))
}, { additionalProperties: false })

export const VerificationSummarySchema = Type.Object({
  proposalId: UuidSchema,
  kind: Type.Optional(Type.String({ description: 'verify | revoke | validity' })),
  status: Type.String({ description: 'open | passed | rejected | vetoed | cancelled | superseded' }),
  deadline: IsoTimestampSchema
})

export const ContentHashSchema = Type.String({
  pattern: '^sha256:[0-9a-f]{64}$',
  description: 'sha256:<hex> of the canonical JSON (keys sorted) of the reviewed content: type, class, ' +
    'controllers, metadata, validFrom, validUntil and the DID document fields (deviceKeys, services, alsoKnownAs, ' +
    'links)'
})

export const DomainSchema = Type.Object({
  did: EntityDidSchema,
  type: Type.String({
    description: 'On-chain entity type (lower case), e.g. project, dao, asset/device, protocol, oracle, deed/request'
  }),
  class: DidSchema,
  protocol: didField('Same value as class'),
  controllers: Type.Array(Type.String()),
  metadata: MetadataSchema,
  validFrom: NullableTimestampSchema,
  validUntil: NullableTimestampSchema,
  status: DomainStatusSchema,
  verified: Type.Boolean({
    description: 'A passed verification covers the current content (stays true after expiry, like the chain flag ' +
      'entity_verified); false once the reviewed content changes, the verification is revoked or the domain renewed'
  }),
  usable: Type.Boolean({
    description: 'May take part in platform activities now: status verified, within its validity period'
  }),
  verification: Nullable(VerificationSummarySchema),
  contentHash: Type.Optional(ContentHashSchema),
  verifiedHash: Type.Optional(Nullable(Type.String({
    description: 'The content hash the last passed verification approved (moved by a passed validity ' +
      'proposal); differs from contentHash once the domain is changed; null when no verification is in force ' +
      'or it was approved before snapshots were recorded'
  }))),
  externalId: Type.Optional(Nullable(Type.String({
    description: 'The identifier from outside the registry given at registration (a serial number), or null'
  }))),
  organisation: Type.Optional(Nullable(didField(
    'The organisation the domain belongs to: links.organisation, else its parent\'s organisation (or the parent ' +
      'itself when that is an organisation); null when none'
  ))),
  project: Type.Optional(Nullable(didField(
    'The project the domain belongs to: its parent when that is a project, else its parent\'s project; null when none'
  ))),
  createdBy: CallerRefSchema,
  createdAt: IsoTimestampSchema,
  updatedAt: IsoTimestampSchema,
  verifiedAt: NullableTimestampSchema,
  deactivatedAt: NullableTimestampSchema,
  ...documentFields
})
export type Domain = Static<typeof DomainSchema>

export const DOMAIN_SORTS = ['createdAt', 'updatedAt'] as const
export const SORT_ORDERS = ['desc', 'asc'] as const

export const ListDomainsQuerySchema = Type.Object({
  ...CursorPageQuerySchema.properties,
  type: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Entity type, any accepted spelling' })),
  protocol: Type.Optional(DidSchema),
  class: Type.Optional(didField('Alias of protocol')),
  status: Type.Optional(DomainStatusSchema),
  controller: Type.Optional(DidSchema),
  externalId: Type.Optional(ExternalIdSchema),
  externalIdPrefix: Type.Optional(Type.String({
    minLength: 1,
    maxLength: 128,
    pattern: '^[\\x21-\\x7E]+$',
    description: 'Only domains whose externalId starts with this (case-sensitive)'
  })),
  organisation: Type.Optional(didField('Only domains of this organisation (see the record\'s organisation)')),
  project: Type.Optional(didField('Only domains of this project (see the record\'s project)')),
  usable: Type.Optional(Type.Boolean({ description: 'Only domains that are (true) or are not (false) usable now' })),
  updatedSince: Type.Optional(Type.String({
    format: 'date-time',
    description: 'Only domains whose updatedAt is at or after this RFC 3339 time',
    examples: ['2026-11-21T09:30:00.000Z']
  })),
  sort: Type.Union(DOMAIN_SORTS.map((s) => Type.Literal(s)), {
    default: 'createdAt',
    description: 'Order by creation or by last update (ties broken by DID)'
  }),
  order: Type.Union(SORT_ORDERS.map((o) => Type.Literal(o)), { default: 'desc', description: 'desc: newest first' })
}, { additionalProperties: false })
export type ListDomainsQuery = Static<typeof ListDomainsQuerySchema>

export const DomainPageSchema = CursorPageSchema(DomainSchema)

export const MAX_BATCH_ITEMS = 1000

export const BatchCreateBodySchema = Type.Object({
  items: Type.Array(CreateDomainBodySchema, {
    minItems: 1,
    maxItems: MAX_BATCH_ITEMS,
    description: 'Up to 1,000 registrations, each what POST /v1/domains takes'
  })
}, { additionalProperties: false })
export type BatchCreateBody = Static<typeof BatchCreateBodySchema>

export const BatchItemErrorSchema = Type.Object({
  statusCode: Type.Integer({ description: 'The status POST /v1/domains would have answered for this item' }),
  code: Type.String(),
  message: Type.String(),
  details: Type.Optional(Type.Array(ErrorDetailSchema))
})

/** One shape for both outcomes (rather than a union), so a page of a thousand serialises fast. */
export const BatchItemResultSchema = Type.Object({
  index: Type.Integer({ minimum: 0, description: 'Position of the item in the request' }),
  status: Type.Union([Type.Literal('created'), Type.Literal('error')]),
  did: Type.Optional(EntityDidSchema),
  externalId: Type.Optional(Nullable(Type.String())),
  error: Type.Optional(BatchItemErrorSchema)
})
export type BatchItemResult = Static<typeof BatchItemResultSchema>

export const BatchCreateResultSchema = Type.Object({
  items: Type.Array(BatchItemResultSchema, { description: 'One result per item, in input order' }),
  created: Type.Integer(),
  failed: Type.Integer()
})
export type BatchCreateResult = Static<typeof BatchCreateResultSchema>
export type DomainPage = Static<typeof DomainPageSchema>

export const DomainEventSchema = Type.Object({
  id: Type.String({ description: 'Increasing sequence number of the entry' }),
  event: Type.String({
    description:
      'created | updated | changed | renewed | verification_proposed | verified | rejected | revocation_proposed | ' +
        'revoked | revocation_rejected | validity_proposed | validity_changed | validity_rejected | ' +
        'proposal_superseded | expired | deactivated'
  }),
  fromStatus: Nullable(DomainStatusSchema),
  toStatus: DomainStatusSchema,
  actor: ActorSchema,
  proposalId: Nullable(UuidSchema),
  reason: Nullable(Type.String()),
  details: Nullable(Type.Object({}, { additionalProperties: true })),
  at: IsoTimestampSchema
})
export type DomainEvent = Static<typeof DomainEventSchema>
export const DomainEventPageSchema = CursorPageSchema(DomainEventSchema)
export type DomainEventPage = Static<typeof DomainEventPageSchema>
