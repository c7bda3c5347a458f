import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@impact/service-kit'
import {
  BatchCreateBodySchema, BatchCreateResultSchema, CreateDomainBodySchema, CursorPageQuerySchema, DeactivateBodySchema,
  DomainEventPageSchema, DomainPageSchema, DomainSchema, ListDomainsQuerySchema, UpdateDomainBodySchema
} from '@impact/schemas'
import { authorize, callerOf } from '../../plugins/auth.ts'
import { AuthHeaderProperties, AuthHeadersSchema, errorResponses, SECURITY } from '../../schemas/security.ts'
import { DidParamsSchema } from '../../schemas/params.ts'
import type { ApiKeyService } from '../../services/api-keys.ts'
import type { BatchService } from '../../services/domain-batch.ts'
import type { DomainService } from '../../services/domains.ts'
import type { IdentifierService } from '../../services/identifiers.ts'
import { DidDocumentSchema } from '../../schemas/did-document.ts'
import { DomainNotFoundError } from '../../errors.ts'

export interface DomainRoutesOptions {
  apiKeys: ApiKeyService
  batches: BatchService
  domains: DomainService
  identifiers: IdentifierService
}

const IdempotencyHeadersSchema = Type.Object({
  ...AuthHeaderProperties,
  'idempotency-key': Type.Optional(Type.String({
    minLength: 1,
    maxLength: 255,
    pattern: '^[\\x21-\\x7E]+$',
    description: 'Makes retries safe: a repeat with the same key and body returns the first result (for 24 h by ' +
      'default) instead of registering a twin; the same key with another body is 422'
  }))
})

const ReplayedHeader = {
  'idempotent-replayed': Type.Optional(Type.Literal('true', {
    description: 'Present when this is the stored answer to an earlier request with the same Idempotency-Key'
  }))
}

const CreatedHeaders = {
  location: Type.String({ description: 'URL of the new domain' }),
  ...ReplayedHeader
}

/** A thousand registrations with their metadata; a single create stays under the app's 64 KiB. */
const BATCH_BODY_LIMIT = 8 * 1024 * 1024

const domainUrl = (did: string) => `/v1/domains/${did}`
const DID_DOCUMENT_TYPE = 'application/did+ld+json'
/** Asks for the DID document rather than the record (the record stays the default). */
const wantsDocument = (accept: string | undefined) =>
  accept !== undefined && accept.toLowerCase().split(',').some((range) => range.trim().startsWith(DID_DOCUMENT_TYPE))

export const domainRoutes: FastifyPluginAsyncTypebox<DomainRoutesOptions> = async (app, options) => {
  const { apiKeys, batches, domains, identifiers } = options
  const tags = ['domains']
  const reader = authorize(apiKeys)
  // A UCAN caller registering for itself needs no role (its capability is the permission);
  // naming another controller (`onBehalfOf`) needs registrar, checked by the service.
  const registrar = authorize(apiKeys, ['registrar'], { ability: 'domain/create', roles: [] })
  const manager = (ability: 'domain/update' | 'domain/deactivate') =>
    authorize(apiKeys, ['registrar', 'admin'], { ability, roles: [] })

  app.post('/v1/domains', {
    onRequest: registrar,
    schema: {
      tags,
      security: SECURITY,
      summary: 'Register a domain',
      description: 'API key: role registrar. UCAN: ability domain/create on the account, no role. Creates a ' +
        'draft domain with a fresh did:ixo:entity DID; the calling account becomes its controller, or with ' +
        '`onBehalfOf` (role registrar) the named controller does and the caller is recorded as creator.',
      headers: IdempotencyHeadersSchema,
      body: CreateDomainBodySchema,
      response: {
        201: { ...DomainSchema, headers: CreatedHeaders },
        ...errorResponses(400, 401, 403, 409, 422)
      }
    }
  }, async (request, reply) => {
    const idempotencyKey = request.headers['idempotency-key']
    const { domain, replayed } = await domains.create(callerOf(request), request.body, idempotencyKey)
    reply.code(201).header('location', domainUrl(domain.did))
    if (replayed) reply.header('idempotent-replayed', 'true')
    return domain
  })

  app.post('/v1/domains/batch', {
    onRequest: registrar,
    bodyLimit: BATCH_BODY_LIMIT,
    schema: {
      tags,
      security: SECURITY,
      summary: 'Register up to 1,000 domains',
      description: 'Auth as POST /v1/domains (onBehalfOf needs registrar, per item). Each item is checked as a ' +
        'single registration and gets its own result in `items`, in input order: created with its DID, or the ' +
        'error POST /v1/domains would have answered (an external id taken, also by an earlier item, is 409 ' +
        'DOMAIN_EXTERNAL_ID_TAKEN). A body that breaks the schema is refused whole (400 naming /items/<n>/…). ' +
        'With Idempotency-Key, a repeat gets the stored results (409 DOMAIN_BATCH_IN_PROGRESS while the first ' +
        'is still running); a run cut short is completed by the next repeat.',
      headers: IdempotencyHeadersSchema,
      body: BatchCreateBodySchema,
      response: {
        200: { ...BatchCreateResultSchema, headers: ReplayedHeader },
        ...errorResponses(400, 401, 403, 409, 413, 422)
      }
    }
  }, async (request, reply) => {
    const { result, replayed } = await batches.register(callerOf(request), request.body,
      request.headers['idempotency-key'])
    if (replayed) reply.header('idempotent-replayed', 'true')
    return result
  })

  app.get('/v1/domains', {
    onRequest: reader,
    schema: {
      tags,
      security: SECURITY,
      headers: AuthHeadersSchema,
      summary: 'List and search domains, newest first by default',
      description: 'Any API key, or UCAN domain/read. Filters combine; follow nextCursor for the next page (a ' +
        'cursor fits the sort and order that issued it). With sort=updatedAt&order=asc and updatedSince, a client ' +
        'follows changes: a domain changed while it pages comes again later.',
      querystring: ListDomainsQuerySchema,
      response: { 200: DomainPageSchema, ...errorResponses(400, 401) }
    }
  }, async (request) => await domains.list(callerOf(request), request.query))

  app.get('/v1/domains/:did', {
    onRequest: reader,
    schema: {
      tags,
      security: SECURITY,
      headers: AuthHeadersSchema,
      summary: 'Read a domain',
      description: 'Any API key, or UCAN domain/read. `usable` says whether the domain may take part in platform ' +
        'activities now. With `Accept: application/did+ld+json`, the current W3C DID document instead of the record.',
      params: DidParamsSchema,
      response: {
        200: {
          description: 'The domain record, or its DID document',
          content: { 'application/json': { schema: DomainSchema }, [DID_DOCUMENT_TYPE]: { schema: DidDocumentSchema } }
        },
        ...errorResponses(400, 401, 404)
      }
    }
  }, async (request, reply) => {
    const { did } = request.params
    if (!wantsDocument(request.headers.accept)) return await domains.get(callerOf(request), did)
    const { result } = await identifiers.resolve(did)
    if (result.didDocument === null) throw new DomainNotFoundError(did)
    reply.header('content-type', DID_DOCUMENT_TYPE)
    return result.didDocument
  })

  app.patch('/v1/domains/:did', {
    onRequest: manager('domain/update'),
    schema: {
      tags,
      security: SECURITY,
      headers: AuthHeadersSchema,
      summary: 'Update a domain',
      description: 'API key: role registrar whose account controls the domain, or admin. UCAN: domain/update by a ' +
        'controller (or an account granted admin). Any state but deactivated. A change to the reviewed content ' +
        '(metadata, controllers, validity, DID document fields) of a verified domain makes it `changed`, not ' +
        'usable until a new verification passes, and supersedes a proposal open on the domain; a new validUntil ' +
        'renews an expired domain to draft. The history entry holds each changed field before and after.',
      params: DidParamsSchema,
      body: UpdateDomainBodySchema,
      response: { 200: DomainSchema, ...errorResponses(400, 401, 403, 404, 409) }
    }
  }, async (request) => await domains.update(callerOf(request), request.params.did, request.body))

  app.post('/v1/domains/:did/deactivate', {
    onRequest: manager('domain/deactivate'),
    // The body is optional: a bare POST means "no reason given".
    preValidation: async (request) => { request.body ??= {} },
    schema: {
      tags,
      security: SECURITY,
      headers: AuthHeadersSchema,
      summary: 'Deactivate a domain',
      description: 'API key: role registrar whose account controls the domain, or admin. UCAN: ' +
        'domain/deactivate by a controller (or an account granted admin). Final: an open verification ' +
        'proposal is cancelled and the domain is no longer usable.',
      params: DidParamsSchema,
      body: DeactivateBodySchema,
      response: { 200: DomainSchema, ...errorResponses(400, 401, 403, 404, 409) }
    }
  }, async (request) => await domains.deactivate(callerOf(request), request.params.did, request.body.reason))

  app.get('/v1/domains/:did/history', {
    onRequest: reader,
    schema: {
      tags,
      security: SECURITY,
      headers: AuthHeadersSchema,
      summary: 'Every transition of a domain: who, when, why',
      description: 'Any API key, or UCAN domain/read. Oldest first.',
      params: DidParamsSchema,
      querystring: CursorPageQuerySchema,
      response: { 200: DomainEventPageSchema, ...errorResponses(400, 401, 404) }
    }
  }, async (request) => await domains.history(request.params.did, request.query))
}
