import { Type, type Static } from '@sinclair/typebox'

export const ROLES = ['reader', 'registrar', 'compliance', 'voter', 'admin'] as const
export const RoleSchema = Type.Union(ROLES.map((r) => Type.Literal(r)), {
  description: 'reader: read only · registrar: create and manage domains, also for another controller · ' +
    'compliance: submit verification proposals · voter: vote on them · admin: manage API keys and account ' +
    'roles, override controllers'
})
export type Role = Static<typeof RoleSchema>
