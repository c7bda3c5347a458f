import { Type } from '@sinclair/typebox'
import { accountField, EntityDidSchema, Nullable } from '@impact/schemas'
import { RoleSchema } from './role.ts'

export const AccountParamsSchema = Type.Object({ did: accountField('The account (a DID without a path)') })

export const AccountRolesBodySchema = Type.Object({
  roles: Type.Array(RoleSchema, {
    maxItems: 5,
    uniqueItems: true,
    description: 'The account\'s roles from now on (an empty list revokes them all)'
  }),
  organisation: Type.Optional(Type.String({
    ...EntityDidSchema,
    description: 'The organisation domain (DID) the account belongs to, for an account of none yet (default: the ' +
      'calling admin\'s organisation, if any); fixed once assigned'
  }))
}, { additionalProperties: false })

export const AccountRolesSchema = Type.Object({
  account: Type.String(),
  roles: Type.Array(RoleSchema, { description: 'Roles granted to the account' }),
  organisation: Nullable(Type.String({ description: 'The organisation (DID) the account belongs to, or null' }))
})
