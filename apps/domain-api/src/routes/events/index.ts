import type { FastifyPluginAsyncTypebox } from '@impact/service-kit'
import { authorize } from '../../plugins/auth.ts'
import { EventFeedPageSchema, EventFeedQuerySchema } from '../../schemas/event.ts'
import { errorResponses, SECURITY } from '../../schemas/security.ts'
import type { ApiKeyService } from '../../services/api-keys.ts'
import type { EventFeed } from '../../services/events.ts'

export interface EventRoutesOptions { apiKeys: ApiKeyService, feed: EventFeed }

export const eventRoutes: FastifyPluginAsyncTypebox<EventRoutesOptions> = async (app, { apiKeys, feed }) => {
  app.get('/v1/events', {
    onRequest: authorize(apiKeys),
    schema: {
      tags: ['events'],
      security: SECURITY,
      summary: 'The change feed: every change to every domain, in one order, resumable',
      description: 'Any role. Each change (created, updated, renewed, verification_proposed, vote_cast, ' +
        'vote_changed, verified, rejected, expired, deactivated) is recorded in the transaction that makes it. ' +
        'Start without `after`, then pass each page\'s nextCursor; an event appears only once every ' +
        'earlier-started write has committed, so resuming from a cursor never skips one. Dedupe on `id` if you ' +
        'also take webhooks.',
      querystring: EventFeedQuerySchema,
      response: { 200: EventFeedPageSchema, ...errorResponses(400, 401) }
    }
  }, async (request) => await feed.read(request.query))
}
