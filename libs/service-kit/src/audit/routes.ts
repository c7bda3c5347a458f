import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { onRequestHookHandler, preHandlerHookHandler } from 'fastify'
import type { AuditTrail } from './audit-trail.ts'

export const AuditEntrySchema = Type.Object({
  id: Type.String({ description: 'Increasing with time; the cursor of the next page' }),
  at: Type.String({ format: 'date-time' }),
  action: Type.String({ description: 'What happened, e.g. auth.login, auth.lockout, roles.changed' }),
  outcome: Type.Union([Type.Literal('success'), Type.Literal('failure')]),
  actor: Type.Union([Type.String(), Type.Null()], { description: 'Who acted: an account, DID, key id or operator' }),
  subject: Type.Union([Type.String(), Type.Null()], { description: 'What it was done to' }),
  ip: Type.Union([Type.String(), Type.Null()], { description: 'The client address of the request' }),
  requestId: Type.Union([Type.String(), Type.Null()]),
  traceId: Type.Union([Type.String(), Type.Null()], { description: 'The trace, when tracing is on' }),
  details: Type.Object({}, { additionalProperties: true, description: 'Facts of the event; never a secret' })
}, { $id: 'AuditEntry' })

export const AuditPageSchema = Type.Object({
  items: Type.Array(Type.Ref(AuditEntrySchema)),
  nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `before` for older entries' })
})

export const AuditQuerySchema = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
  before: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,18}$', description: 'A page\'s nextCursor' })),
  action: Type.Optional(Type.String({ pattern: '^[a-z_.]{1,64}$', description: 'Only this action' }))
}, { additionalProperties: false })

export interface AuditRoutesOptions {
  trail: AuditTrail
  /** Where the route is mounted, relative to the plugin's prefix (`/audit`). */
  url: string
  /** The app's operator or admin check, run before anything else. */
  onRequest: onRequestHookHandler | onRequestHookHandler[]
  preHandler?: preHandlerHookHandler | preHandlerHookHandler[]
  /** The route's OpenAPI tags and security requirement; operator tags also make its use recorded. */
  tags: string[]
  security: Array<Record<string, string[]>>
  /** The app's error responses (each app documents its own). */
  errors: Record<number, unknown>
}

/** `GET <url>?limit&before&action`: the app's audit records, newest first, a page at a time. */
export const auditRoutes: FastifyPluginAsyncTypebox<AuditRoutesOptions> = async (app, options) => {
  if (!app.getSchemas().AuditEntry) app.addSchema(AuditEntrySchema)
  app.get(options.url, {
    onRequest: options.onRequest,
    ...(options.preHandler !== undefined ? { preHandler: options.preHandler } : {}),
    schema: {
      tags: options.tags,
      security: options.security,
      summary: 'The audit trail',
      description: 'Security-relevant events (logins and their failures, lockouts, resets, key and role changes, ' +
        'votes, approvals, operator requests), newest first: who, what, when, from which address, with the ' +
        'request id and trace id. Never a secret. Kept AUDIT_RETENTION_DAYS days.',
      querystring: AuditQuerySchema,
      response: { 200: AuditPageSchema, ...options.errors }
    }
  }, async (request, reply) => {
    const page = await options.trail.sink.page(request.query)
    reply.header('cache-control', 'no-store')
    return { items: page.items.map((item) => ({ ...item, at: item.at.toISOString() })), nextCursor: page.nextCursor }
  })
}
