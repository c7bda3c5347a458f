import { Type, type Static } from '@sinclair/typebox'
import {
  CallerRefSchema, CursorPageQuerySchema, CursorPageSchema, IsoTimestampSchema, Nullable, NullableTimestampSchema,
  UuidSchema
} from '@impact/schemas'
import { EventTypeSchema, FeedEventSchema } from './event.ts'

export const CreateWebhookBodySchema = Type.Object({
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    description: 'http(s) URL that receives a POST per event; outside development it must be a public address',
    examples: ['https://oracle.example.org/hooks/domains']
  }),
  events: Type.Array(Type.Union([EventTypeSchema, Type.Literal('*')]), {
    minItems: 1,
    maxItems: 20,
    uniqueItems: true,
    description: 'Event types to deliver; ["*"] for all'
  }),
  secret: Type.Optional(Type.String({
    minLength: 24,
    maxLength: 256,
    pattern: '^[\\x21-\\x7E]+$',
    description: 'Signing secret (printable ASCII, ≥ 24 characters); generated when absent'
  }))
}, { additionalProperties: false })
export type CreateWebhookBody = Static<typeof CreateWebhookBodySchema>

export const WebhookSchema = Type.Object({
  id: UuidSchema,
  url: Type.String(),
  events: Type.Array(Type.String()),
  organisation: Nullable(Type.String({
    description: 'The organisation (DID) of the admin that registered it: it gets the events of that ' +
      'organisation\'s domains only; null: every event'
  })),
  createdBy: CallerRefSchema,
  createdAt: IsoTimestampSchema
})
export type Webhook = Static<typeof WebhookSchema>

export const CreatedWebhookSchema = Type.Object({
  ...WebhookSchema.properties,
  secret: Type.String({
    description: 'HMAC-SHA256 key of X-Signature (its UTF-8 bytes). Shown in this response only: keep it now'
  })
})

export const WebhookPageSchema = CursorPageSchema(WebhookSchema)
export const WebhookParamsSchema = Type.Object({ id: UuidSchema })
export const DeliveryParamsSchema = Type.Object({ id: UuidSchema, deliveryId: UuidSchema })

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const
export const DeliveryStatusSchema = Type.Union(DELIVERY_STATUSES.map((s) => Type.Literal(s)), {
  description: 'pending: queued or between retries · delivered: a 2xx answered · failed: attempts exhausted'
})

export const DeliverySchema = Type.Object({
  id: UuidSchema,
  webhookId: UuidSchema,
  eventId: Type.String({ description: 'The event (X-Event-Id): the same across retries and redeliveries' }),
  eventType: Type.String(),
  status: DeliveryStatusSchema,
  attempts: Type.Integer({ description: 'Attempts since the delivery was queued or last redelivered' }),
  inFlight: Type.Boolean({ description: 'A worker is sending it right now' }),
  nextAttemptAt: Type.Union([IsoTimestampSchema, Type.Null()], { description: 'When it is tried next (pending only)' }),
  lastAttemptAt: NullableTimestampSchema,
  lastStatusCode: Type.Union([Type.Integer(), Type.Null()], {
    description: 'HTTP status of the last answer; null: none came'
  }),
  lastError: Type.Union([Type.String(), Type.Null()], {
    description: 'Why the last attempt got no answer (timeout, refused…)'
  }),
  createdAt: IsoTimestampSchema,
  deliveredAt: NullableTimestampSchema
})
export type Delivery = Static<typeof DeliverySchema>

export const AttemptSchema = Type.Object({
  at: IsoTimestampSchema,
  statusCode: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
  durationMs: Type.Integer()
})

export const DeliveryDetailSchema = Type.Object({
  ...DeliverySchema.properties,
  event: FeedEventSchema,
  log: Type.Array(AttemptSchema, { description: 'Every attempt, oldest first' })
})

export const DeliveryPageSchema = CursorPageSchema(DeliverySchema)
export const ListDeliveriesQuerySchema = Type.Object({
  ...CursorPageQuerySchema.properties,
  status: Type.Optional(DeliveryStatusSchema)
}, { additionalProperties: false })
export type ListDeliveriesQuery = Static<typeof ListDeliveriesQuerySchema>
