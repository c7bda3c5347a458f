import { Type } from '@sinclair/typebox'

export const StoreDelegationSchema = Type.Object({
  raw: Type.String({ minLength: 1, maxLength: 16_384, description: 'Base64 UCAN delegation CAR (user → this oracle)' }),
  issuer: Type.Optional(Type.String({ maxLength: 512, description: 'Ignored: derived from the token' })),
  audience: Type.Optional(Type.String({ maxLength: 512, description: 'Ignored: derived from the token' })),
  expiration: Type.Optional(Type.Number({ description: 'Ignored: derived from the token' }))
}, { additionalProperties: false })

const CapabilitySchema = Type.Object({ can: Type.String(), with: Type.String() })

export const StoreDelegationReplySchema = Type.Object({ ok: Type.Literal(true), expiration: Type.Integer({ description: 'Unix seconds: the earliest expiry in the chain' }) })
export const DelegationStatusSchema = Type.Object({
  authorized: Type.Boolean(),
  expiration: Type.Optional(Type.Integer()),
  capabilities: Type.Optional(Type.Array(CapabilitySchema))
})
export const RevokeReplySchema = Type.Object({ ok: Type.Literal(true) })
