import { Type } from '@sinclair/typebox'
import type { AuditTrail, FastifyPluginAsyncTypebox } from '@impact/service-kit'
import { CursorPageQuerySchema, Nullable } from '@impact/schemas'
import { authorize, callerOf } from '../../plugins/auth.ts'
import { errorResponses, KEY_SECURITY } from '../../schemas/security.ts'
import {
  ApiKeyPageSchema,
  ApiKeyParamsSchema,
  ApiKeySchema,
  CreateApiKeyBodySchema,
  CreatedApiKeySchema
} from '../../schemas/api-key.ts'
import { RoleSchema } from '../../schemas/role.ts'
import { principalOf, type ApiKeyService } from '../../services/api-keys.ts'

export interface ApiKeyRoutesOptions { apiKeys: ApiKeyService, audit: Pick<AuditTrail, 'record'> }

const CurrentKeySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  roles: Type.Array(RoleSchema),
  account: Type.String(),
  organisation: Nullable(Type.String({ description: 'The organisation (DID) the caller acts in, or null' }))
})

export const apiKeyRoutes: FastifyPluginAsyncTypebox<ApiKeyRoutesOptions> = async (app, { apiKeys, audit }) => {
  const tags = ['api keys']
  const admin = authorize(apiKeys, ['admin'])

  app.post('/v1/api-keys', {
    onRequest: admin,
    schema: {
      tags,
      security: KEY_SECURITY,
      summary: 'Issue an API key',
      description: 'Role: admin. The key is in this response only; the service keeps a digest of it. It acts in ' +
        '`organisation` (default: its account\'s, else the issuing admin\'s); an admin of an organisation issues ' +
        'keys of it only (403 DOMAIN_ORGANISATION_FORBIDDEN); another organisation than the account\'s is 409 ' +
        'DOMAIN_ORGANISATION_CONFLICT, one that is not an organisation domain 422 DOMAIN_ORGANISATION_INVALID.',
      body: CreateApiKeyBodySchema,
      response: { 201: CreatedApiKeySchema, ...errorResponses(400, 401, 403, 409, 422) }
    }
  }, async (request, reply) => {
    const created = await apiKeys.issue(callerOf(request), request.body)
    await audit.record({
      action: 'api_key.issued',
      actor: principalOf(callerOf(request)),
      subject: created.id,
      details: { account: created.account, roles: created.roles }
    })
    // The answer carries a secret: no cache may keep it.
    return await reply
      .code(201)
      .header('cache-control', 'no-store')
      .header('location', `/v1/api-keys/${created.id}`)
      .send(created)
  })

  app.get('/v1/api-keys', {
    onRequest: admin,
    schema: {
      tags,
      security: KEY_SECURITY,
      summary: 'List API keys (without secrets), oldest first',
      description: 'Role: admin. An admin of an organisation sees the keys acting in it only.',
      querystring: CursorPageQuerySchema,
      response: { 200: ApiKeyPageSchema, ...errorResponses(400, 401, 403) }
    }
  }, async (request) => await apiKeys.list(callerOf(request), request.query))

  app.get('/v1/api-keys/current', {
    onRequest: authorize(apiKeys, [], {}),
    schema: {
      tags,
      security: KEY_SECURITY,
      summary: 'The key making this request: id, effective roles and account',
      description: 'Any API key. `roles` are those the key names that its account holds.',
      response: { 200: CurrentKeySchema, ...errorResponses(401, 403) }
    }
  }, async (request) => apiKeys.describe(callerOf(request)))

  app.get('/v1/api-keys/:id', {
    onRequest: admin,
    schema: {
      tags,
      security: KEY_SECURITY,
      summary: 'Read an API key (without its secret)',
      description: 'Role: admin (of its organisation, or a platform admin; others get 404).',
      params: ApiKeyParamsSchema,
      response: { 200: ApiKeySchema, ...errorResponses(400, 401, 403, 404) }
    }
  }, async (request) => await apiKeys.get(callerOf(request), request.params.id))

  app.delete('/v1/api-keys/:id', {
    onRequest: admin,
    schema: {
      tags,
      security: KEY_SECURITY,
      summary: 'Revoke an API key',
      description: 'Role: admin (of its organisation, or a platform admin). Takes effect at once on every replica; ' +
        'revoking a revoked key changes nothing.',
      params: ApiKeyParamsSchema,
      response: { 204: Type.Null({ description: 'Revoked' }), ...errorResponses(400, 401, 403, 404) }
    }
  }, async (request, reply) => {
    await apiKeys.revoke(callerOf(request), request.params.id)
    await audit.record({ action: 'api_key.revoked', actor: principalOf(callerOf(request)), subject: request.params.id })
    return await reply.code(204).send(null)
  })
}
