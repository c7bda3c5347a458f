import { Type, type Static } from '@sinclair/typebox'
import { DomainEventSchema, EntityDidSchema } from '@impact/schemas'

/** Every kind of change the registry records; the feed and webhooks filter on these names. */
export const EVENT_TYPES = [
  'created', 'updated', 'changed', 'renewed', 'verification_proposed', 'vote_cast', 'vote_changed', 'verified',
  'rejected', 'revocation_proposed', 'revoked', 'revocation_rejected', 'validity_proposed', 'validity_changed',
  'validity_rejected', 'proposal_superseded', 'expired', 'deactivated'
] as const
export type EventType = typeof EVENT_TYPES[number]

export const EventTypeSchema = Type.Union(EVENT_TYPES.map((t) => Type.Literal(t)), {
  description: 'created · updated · changed (reviewed content of a verified domain changed: not usable until a ' +
    'new verification passes) · renewed (validity of an expired domain renewed) · verification_proposed · ' +
    'vote_cast · vote_changed (an account replaced its vote) · verified · rejected (details.outcome vetoed for a ' +
    'veto) · revocation_proposed · revoked · revocation_rejected · validity_proposed · validity_changed · ' +
    'validity_rejected · proposal_superseded (a change made an open proposal\'s snapshot stale) · expired · ' +
    'deactivated'
})

export const FeedEventSchema = Type.Object({
  ...DomainEventSchema.properties,
  event: Type.String({ description: EventTypeSchema.description }),
  id: Type.String({
    pattern: '^[0-9]+$',
    description: 'Unique, stable id of the event (the idempotency key receivers dedupe on)'
  }),
  domainDid: EntityDidSchema
})
export type FeedEvent = Static<typeof FeedEventSchema>

export const MAX_FEED_LIMIT = 500

export const EventFeedQuerySchema = Type.Object({
  after: Type.Optional(Type.String({
    minLength: 1,
    maxLength: 128,
    description: 'Opaque cursor from an earlier page\'s nextCursor; omitted: from the first event'
  })),
  types: Type.Optional(Type.String({
    pattern: `^(${EVENT_TYPES.join('|')})(,(${EVENT_TYPES.join('|')}))*$`,
    maxLength: 256,
    description: 'Comma-separated event types to return (default: all)',
    examples: ['verified,rejected']
  })),
  limit: Type.Integer({ minimum: 1, maximum: MAX_FEED_LIMIT, default: 100 })
}, { additionalProperties: false })
export type EventFeedQuery = Static<typeof EventFeedQuerySchema>

export const EventFeedPageSchema = Type.Object({
  items: Type.Array(FeedEventSchema),
  nextCursor: Type.String({
    description: 'Where to resume: pass it as `after` (also when items is empty, to wait for new events)'
  }),
  hasMore: Type.Boolean({ description: 'More events are ready now; false: caught up, poll again later' })
})
