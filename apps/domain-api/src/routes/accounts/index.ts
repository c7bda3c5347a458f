import type { AuditTrail, FastifyPluginAsyncTypebox } from '@impact/service-kit'
import { authorize, callerOf } from '../../plugins/auth.ts'
import { AccountParamsSchema, AccountRolesBodySchema, AccountRolesSchema } from '../../schemas/account.ts'
import { errorResponses, KEY_SECURITY } from '../../schemas/security.ts'
import type { AccountService } from '../../services/accounts.ts'
import { principalOf, type ApiKeyService } from '../../services/api-keys.ts'

export interface AccountRoutesOptions {
  apiKeys: ApiKeyService
  accounts: AccountService
  audit: Pick<AuditTrail, 'record'>
}

/** Roles are granted to accounts (DIDs); keys of the account and UCAN callers acting for it use them. */
export const accountRoutes: FastifyPluginAsyncTypebox<AccountRoutesOptions> = async (app, options) => {
  const { apiKeys, accounts, audit } = options
  const tags = ['accounts']
  const admin = authorize(apiKeys, ['admin'])

  app.get('/v1/accounts/:did/roles', {
    onRequest: admin,
    schema: {
      tags,
      security: KEY_SECURITY,
      summary: 'The roles granted to an account',
      description: 'Role: admin (a platform admin, or one of the account\'s organisation). An account never granted ' +
        'a role has an empty list.',
      params: AccountParamsSchema,
      response: { 200: AccountRolesSchema, ...errorResponses(400, 401, 403) }
    }
  }, async (request) => await accounts.get(callerOf(request), request.params.did))

  app.put('/v1/accounts/:did/roles', {
    onRequest: admin,
    schema: {
      tags,
      security: KEY_SECURITY,
      summary: 'Set the roles of an account',
      description: 'Role: admin. Replaces the account\'s roles; takes effect at once on every replica for its keys ' +
        'and UCAN callers. A key acts with the roles it names that its account holds. An account without ' +
        'organisation joins `organisation` (default: the calling admin\'s); an account\'s organisation never ' +
        'changes (409 DOMAIN_ORGANISATION_CONFLICT). An admin of an organisation manages its accounts only and ' +
        'grants no governance role (compliance, voter, vetoer): 403 DOMAIN_ORGANISATION_FORBIDDEN.',
      params: AccountParamsSchema,
      body: AccountRolesBodySchema,
      response: { 200: AccountRolesSchema, ...errorResponses(400, 401, 403, 409, 422) }
    }
  }, async (request) => {
    const caller = callerOf(request)
    const { roles, organisation } = request.body
    const set = await accounts.setRoles(caller, request.params.did, roles, organisation)
    await audit.record({
      action: 'roles.changed',
      actor: principalOf(caller),
      subject: request.params.did,
      details: { roles: set.roles, ...(organisation !== undefined ? { organisation } : {}) }
    })
    return set
  })
}
