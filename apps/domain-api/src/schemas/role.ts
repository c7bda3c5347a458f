import { Type, type Static } from '@sinclair/typebox'

export const ROLES = ['reader', 'registrar', 'compliance', 'voter', 'vetoer', 'admin'] as const
export const RoleSchema = Type.Union(ROLES.map((r) => Type.Literal(r)), {
  description: 'reader: read only · registrar: create and manage domains, also for another controller · ' +
    'compliance: submit verification proposals · voter: vote on the proposals opened while it holds the role · ' +
    'vetoer: veto those proposals (a veto rejects at once) · admin: manage API keys and account roles, override ' +
    'controllers'
})
export type Role = Static<typeof RoleSchema>
