import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@impact/service-kit'
import { CursorPageQuerySchema } from '@impact/schemas'
import { authorize, callerOf } from '../../plugins/auth.ts'
import { errorResponses, SECURITY } from '../../schemas/security.ts'
import {
  CreatedWebhookSchema, CreateWebhookBodySchema, DeliveryDetailSchema, DeliveryPageSchema, DeliveryParamsSchema,
  DeliverySchema, ListDeliveriesQuerySchema, WebhookPageSchema, WebhookParamsSchema, WebhookSchema
} from '../../schemas/webhook.ts'
import type { ApiKeyService } from '../../services/api-keys.ts'
import type { WebhookService } from '../../services/webhooks.ts'

export interface WebhookRoutesOptions { apiKeys: ApiKeyService, webhooks: WebhookService }

const SIGNING = 'Each delivery is a POST of one feed event (JSON) with X-Event-Id (stable across retries: dedupe on ' +
  'it), X-Event-Type, X-Delivery-Id, X-Delivery-Attempt, X-Timestamp (Unix seconds) and X-Signature: ' +
  'sha256=<hex HMAC-SHA256 with the secret of "<X-Timestamp>.<raw body>">. A 2xx within the timeout acknowledges; ' +
  'anything else is retried with exponential backoff up to the attempt limit.'

export const webhookRoutes: FastifyPluginAsyncTypebox<WebhookRoutesOptions> = async (app, { apiKeys, webhooks }) => {
  const tags = ['webhooks']
  const admin = authorize(apiKeys, ['admin'])

  app.post('/v1/webhooks', {
    onRequest: admin,
    schema: {
      tags,
      security: SECURITY,
      summary: 'Register a webhook',
      description: `Role: admin. Events committed from now on are delivered. ${SIGNING} The secret is in this ` +
        'response only.',
      body: CreateWebhookBodySchema,
      response: { 201: CreatedWebhookSchema, ...errorResponses(400, 401, 403) }
    }
  }, async (request, reply) => {
    const created = await webhooks.create(callerOf(request), request.body)
    return await reply.code(201).header('cache-control', 'no-store').header('location', `/v1/webhooks/${created.id}`)
      .send(created)
  })

  app.get('/v1/webhooks', {
    onRequest: admin,
    schema: {
      tags,
      security: SECURITY,
      summary: 'List webhooks (without secrets), oldest first',
      description: 'Role: admin.',
      querystring: CursorPageQuerySchema,
      response: { 200: WebhookPageSchema, ...errorResponses(400, 401, 403) }
    }
  }, async (request) => await webhooks.list(callerOf(request), request.query))

  app.get('/v1/webhooks/:id', {
    onRequest: admin,
    schema: {
      tags,
      security: SECURITY,
      summary: 'Read a webhook (without its secret)',
      description: 'Role: admin.',
      params: WebhookParamsSchema,
      response: { 200: WebhookSchema, ...errorResponses(400, 401, 403, 404) }
    }
  }, async (request) => await webhooks.get(callerOf(request), request.params.id))

  app.delete('/v1/webhooks/:id', {
    onRequest: admin,
    schema: {
      tags,
      security: SECURITY,
      summary: 'Delete a webhook',
      description: 'Role: admin. Its queued deliveries and delivery log go with it.',
      params: WebhookParamsSchema,
      response: { 204: Type.Null({ description: 'Deleted' }), ...errorResponses(400, 401, 403, 404) }
    }
  }, async (request, reply) => {
    await webhooks.remove(callerOf(request), request.params.id)
    return await reply.code(204).send(null)
  })

  app.get('/v1/webhooks/:id/deliveries', {
    onRequest: admin,
    schema: {
      tags,
      security: SECURITY,
      summary: 'Delivery log of a webhook, newest first',
      description: 'Role: admin. Attempts, last status code or error, and when the next attempt is due.',
      params: WebhookParamsSchema,
      querystring: ListDeliveriesQuerySchema,
      response: { 200: DeliveryPageSchema, ...errorResponses(400, 401, 403, 404) }
    }
  }, async (request) => await webhooks.deliveries(callerOf(request), request.params.id, request.query))

  app.get('/v1/webhooks/:id/deliveries/:deliveryId', {
    onRequest: admin,
    schema: {
      tags,
      security: SECURITY,
      summary: 'One delivery with its event and every attempt',
      description: 'Role: admin.',
      params: DeliveryParamsSchema,
      response: { 200: DeliveryDetailSchema, ...errorResponses(400, 401, 403, 404) }
    }
  }, async (request) => await webhooks.delivery(callerOf(request), request.params.id, request.params.deliveryId))

  app.post('/v1/webhooks/:id/deliveries/:deliveryId/redeliver', {
    onRequest: admin,
    schema: {
      tags,
      security: SECURITY,
      summary: 'Send a delivery again',
      description: 'Role: admin. Queues the event for this hook at once, whatever the delivery\'s status, with a ' +
        'fresh attempt budget and the same X-Event-Id. 409 while an attempt is in flight.',
      params: DeliveryParamsSchema,
      response: { 202: DeliverySchema, ...errorResponses(400, 401, 403, 404, 409) }
    }
  }, async (request, reply) => {
    const delivery = await webhooks.redeliver(callerOf(request), request.params.id, request.params.deliveryId)
    return await reply.code(202).send(delivery)
  })
}
