import { Type, type Static } from '@sinclair/typebox'
import {
  accountField, CursorPageSchema, EntityDidSchema, IsoTimestampSchema, Nullable, NullableTimestampSchema, UuidSchema
} from '@impact/schemas'
import { RoleSchema } from './role.ts'

export const CreateApiKeyBodySchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100, description: 'What the key is for (shown in listings)' }),
  roles: Type.Array(RoleSchema, {
    minItems: 1,
    maxItems: 5,
    uniqueItems: true,
    description: 'Roles the key may use; it acts with those its account also holds (PUT /v1/accounts/{did}/roles)'
  }),
  account: accountField('Account (DID) the key belongs to and acts for; it becomes a controller of the domains ' +
    'the key creates. Required: a key never acts for another account'),
  organisation: Type.Optional(Type.String({
    ...EntityDidSchema,
    description: 'Organisation domain (DID) the key acts in. Default: its account\'s organisation, else the ' +
      'issuing admin\'s; left out by a platform admin for an account of none: a platform-wide key (beyond public ' +
      'data only for an admin)'
  }))
}, { additionalProperties: false })
export type CreateApiKeyBody = Static<typeof CreateApiKeyBodySchema>

const KeyFields = {
  id: Type.String({ description: 'Key id (a UUID; `bootstrap` for the DOMAIN_API_ADMIN_KEY)' }),
  name: Type.String(),
  roles: Type.Array(RoleSchema),
  account: Type.String(),
  organisation: Nullable(Type.String({
    description: 'The organisation (DID) the key acts in; null: its account\'s, if any (an admin key of none is ' +
      'platform-wide)'
  })),
  prefix: Type.String({ description: 'First characters of the key, to recognise it' })
}

export const ApiKeySchema = Type.Object({
  ...KeyFields,
  createdBy: Type.String({ description: 'Id of the key that issued it' }),
  createdAt: IsoTimestampSchema,
  revokedAt: NullableTimestampSchema
})
export type ApiKey = Static<typeof ApiKeySchema>

export const CreatedApiKeySchema = Type.Object({
  ...KeyFields,
  key: Type.String({ description: 'The secret key. Shown only in this response: store it now' }),
  createdAt: IsoTimestampSchema
})

export const ApiKeyPageSchema = CursorPageSchema(ApiKeySchema)
export const ApiKeyParamsSchema = Type.Object({ id: UuidSchema })
