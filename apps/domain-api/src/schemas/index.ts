/**
 * The registry's wire shapes for its clients (`@impact/domain-api/schemas`): `@impact/platform-client`
 * types its answers with these, so client and server cannot drift apart.
 */
export * from './domain.ts'
export * from './proposal.ts'
export { CallerRefSchema, ActorSchema, ROLES, type Role } from './common.ts'
