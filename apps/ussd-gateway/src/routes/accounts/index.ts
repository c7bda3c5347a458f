import { Type } from '@sinclair/typebox'
import { staticBearerGuard, type AuditTrail, type FastifyPluginAsyncTypebox } from '@impact/service-kit'
import type { Kysely } from 'kysely'
import type { Config } from '../../config.ts'
import { findAccount, setRoles, type Account } from '../../db/accounts.repository.ts'
import type { DB } from '../../db/types.ts'
import { UssdAccountNotFoundError } from '../../errors.ts'
import { AccountViewSchema, CustomerIdParamSchema, SetRolesSchema } from '../../schemas/ussd.ts'
import { normaliseCustomerId } from '../../services/customer-id.ts'
import { isLocked } from '../../services/menu/pin-check.ts'
import type { Preferences } from '../../services/preferences.ts'
import { operatorRoutesEnabled } from '../debug/index.ts'

export interface AccountRoutesOptions {
  config: Config
  db: Kysely<DB>
  preferences: Preferences
  audit: Pick<AuditTrail, 'record'>
}

/**
 * `GET /api/ussd/accounts/:customerId` and `PUT …/roles`: operators read an account's identity and set
 * its roles (a field agent is an account with the `agent` role). Same auth as the debug routes.
 */
export const accountRoutes: FastifyPluginAsyncTypebox<AccountRoutesOptions> = async (
  app,
  { config, db, preferences, audit }
) => {
  if (!operatorRoutesEnabled(config)) return
  const guard = config.OPERATOR_TOKEN === undefined ? [] : [staticBearerGuard([config.OPERATOR_TOKEN])]
  const security = config.OPERATOR_TOKEN === undefined ? [] : [{ operatorToken: [] }]
  const params = Type.Object({ customerId: CustomerIdParamSchema })
  const errors = {
    400: { $ref: 'ErrorBody#' },
    401: { $ref: 'ErrorBody#' },
    404: { $ref: 'ErrorBody#' },
    429: { $ref: 'ErrorBody#' },
    503: { $ref: 'ErrorBody#' }
  }
  const view = async (account: Account) => ({
    customerId: account.customerId,
    did: account.did,
    roles: account.roles,
    language: await preferences.language(account.phoneNumber),
    createdAt: account.createdAt.toISOString(),
    locked: isLocked(account)
  })

  app.get('/accounts/:customerId', {
    schema: {
      tags: ['operator'],
      summary: 'An account\'s identity and roles',
      description: 'The account\'s DID, roles, language, creation time and whether it is locked; never a PIN or key.',
      security,
      params,
      response: { 200: AccountViewSchema, ...errors }
    },
    preHandler: guard
  }, async (request) => {
    const customerId = normaliseCustomerId(request.params.customerId) ?? ''
    const account = await findAccount(db, customerId)
    if (account === undefined) throw new UssdAccountNotFoundError(customerId)
    return await view(account)
  })

  app.put('/accounts/:customerId/roles', {
    schema: {
      tags: ['operator'],
      summary: 'Set an account\'s roles',
      description: 'Replaces the roles: `household` (every account by default) and `agent` (field agent). ' +
        'Answers the account.',
      security,
      params,
      body: SetRolesSchema,
      response: { 200: AccountViewSchema, ...errors }
    },
    preHandler: guard
  }, async (request) => {
    const customerId = normaliseCustomerId(request.params.customerId) ?? ''
    const account = await setRoles(db, customerId, request.body.roles)
    if (account === undefined) throw new UssdAccountNotFoundError(customerId)
    request.log.info({ customerId, roles: account.roles }, 'account roles set')
    const details = { roles: account.roles }
    await audit.record({ action: 'roles.changed', actor: 'operator', subject: customerId, details })
    return await view(account)
  })
}
