import { Type, type Static } from '@sinclair/typebox'
import { DID_PATTERN, IsoTimestampSchema, Nullable } from '@impact/schemas'

export const ROLES = ['registrar', 'compliance', 'voter', 'admin'] as const
export const RoleSchema = Type.Union(ROLES.map((r) => Type.Literal(r)), {
  description: 'registrar: create and manage domains · compliance: submit verification proposals · voter: vote on them · admin: manage API keys, override controllers'
})
export type Role = Static<typeof RoleSchema>

export const ENTITY_DID_PATTERN = '^did:ixo:entity:[0-9a-f]{32}$'
export const EntityDidSchema = Type.String({
  pattern: ENTITY_DID_PATTERN,
  description: 'DID of a registered domain: did:ixo:entity:<32 lowercase hex>',
  examples: ['did:ixo:entity:3d079ebc0b332aad3305bb4a51c72edb']
})

export const UuidSchema = Type.String({ format: 'uuid' })

export const ActorSchema = Type.Object({
  kind: Type.Union([Type.Literal('api-key'), Type.Literal('governance'), Type.Literal('system')], {
    description: 'api-key: a caller; governance: a proposal outcome; system: time (expiry, end of a voting period)'
  }),
  keyId: Nullable(Type.String()),
  account: Nullable(Type.String())
})

export const CallerRefSchema = Type.Object({ keyId: Type.String(), account: Type.String() })

export const NullableTimestampSchema = Nullable(IsoTimestampSchema)

/** A DID field with its own description (the shared DidSchema carries a generic one). */
export const didField = (description: string) => Type.String({ pattern: DID_PATTERN, maxLength: 512, description })

export const MAX_CONTROLLERS = 20
export const controllersField = (options: { minItems?: number, description: string }) =>
  Type.Array(Type.String({ pattern: DID_PATTERN, maxLength: 512 }), { maxItems: MAX_CONTROLLERS, uniqueItems: true, ...options })
