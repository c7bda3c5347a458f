import { Type } from '@sinclair/typebox'
import { accountField } from '@impact/schemas'
import { RoleSchema } from './role.ts'

export const AccountParamsSchema = Type.Object({ did: accountField('The account (a DID without a path)') })

export const AccountRolesBodySchema = Type.Object({
  roles: Type.Array(RoleSchema, {
    maxItems: 5,
    uniqueItems: true,
    description: 'The account\'s roles from now on (an empty list revokes them all)'
  })
}, { additionalProperties: false })

export const AccountRolesSchema = Type.Object({
  account: Type.String(),
  roles: Type.Array(RoleSchema, { description: 'Roles granted to the account' })
})
