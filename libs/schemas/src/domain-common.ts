import { Type } from '@sinclair/typebox'
import { DID_PATTERN, IsoTimestampSchema, Nullable, PATHLESS_DID_PATTERN } from './common.ts'

/** Primitives of the domain registry's wire shapes (apps/domain-api), shared with its clients. */

export const ENTITY_DID_PATTERN = '^did:ixo:entity:[0-9a-f]{32}$'
export const EntityDidSchema = Type.String({
  pattern: ENTITY_DID_PATTERN,
  description: 'DID of a registered domain: did:ixo:entity:<32 lowercase hex>',
  examples: ['did:ixo:entity:3d079ebc0b332aad3305bb4a51c72edb']
})

export const UuidSchema = Type.String({ format: 'uuid' })

/** An account DID: a DID without a path, so it fits one URL path segment. */
export const accountField = (description: string) =>
  Type.String({ pattern: PATHLESS_DID_PATTERN, maxLength: 512, description, examples: ['did:ixo:ixo1fieldoffice'] })

const serviceField = Nullable(Type.String({
  description: 'The service that invoked for the account (a UCAN chain\'s invoker other than the account); ' +
    'null when the account acted itself'
}))

export const ActorSchema = Type.Object({
  kind: Type.Union(['api-key', 'ucan', 'governance', 'system'].map((kind) => Type.Literal(kind)), {
    description: 'api-key: a caller with an API key; ucan: a caller proven by a UCAN invocation; ' +
      'governance: a proposal outcome; system: time (expiry, end of a voting period)'
  }),
  keyId: Nullable(Type.String()),
  account: Nullable(Type.String()),
  service: serviceField
})

export const CallerRefSchema = Type.Object({
  keyId: Nullable(Type.String({ description: 'The API key used; null for a UCAN caller' })),
  account: Type.String({ description: 'The account (DID) the call acted for' }),
  service: serviceField
})

export const NullableTimestampSchema = Nullable(IsoTimestampSchema)

/** A DID field with its own description (the shared DidSchema carries a generic one). */
export const didField = (description: string) => Type.String({ pattern: DID_PATTERN, maxLength: 512, description })

export const MAX_CONTROLLERS = 20
export const controllersField = (options: { minItems?: number; description: string }) =>
  Type.Array(Type.String({ pattern: DID_PATTERN, maxLength: 512 }), {
    maxItems: MAX_CONTROLLERS,
    uniqueItems: true,
    ...options
  })
