import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as shared from '@impact/schemas'
import { createHarness, type Harness } from './support/runtime.ts'

interface RouteSchema {
  body?: unknown
  querystring?: unknown
  params?: { properties: Record<string, unknown> }
  response?: Record<string, { $ref?: string, anyOf?: unknown[] }>
}
type Part = (schema: RouteSchema) => unknown

// The client's types are Static<> of @impact/schemas: the runtime must validate and serialise with
// those very schema objects, not with copies that could drift.
const routes: Array<[string, string, string, Array<[string, Part, unknown]>]> = [
  ['POST', '/sessions', 'POST /sessions', [['201', (s) => s.response?.[201]?.$ref, shared.ChatSessionSchema.$id]]],
  ['GET', '/sessions', 'GET /sessions', [
    ['querystring', (s) => s.querystring, shared.SessionListQuerySchema],
    ['200', (s) => s.response?.[200], shared.SessionListSchema]
  ]],
  ['DELETE', '/sessions/s_1', 'DELETE /sessions/:sessionId', [
    ['params.sessionId', (s) => s.params?.properties.sessionId, shared.SessionIdSchema],
    ['200', (s) => s.response?.[200], shared.SessionDeletedSchema]
  ]],
  ['POST', '/messages/s_1', 'POST /messages/:sessionId', [
    ['body', (s) => s.body, shared.SendMessageSchema],
    ['200', (s) => s.response?.[200], shared.SendMessageReplySchema],
    ['402', (s) => s.response?.[402], shared.PaymentRequiredSchema]
  ]],
  ['GET', '/messages/s_1', 'GET /messages/:sessionId', [['200', (s) => s.response?.[200], shared.LegacyHistorySchema]]],
  ['POST', '/messages/abort', 'POST /messages/abort', [
    ['body', (s) => s.body, shared.AbortBodySchema],
    ['200', (s) => s.response?.[200], shared.AbortReplySchema]
  ]],
  ['GET', '/sessions/s_1/messages', 'GET /sessions/:id/messages', [
    ['params.id', (s) => s.params?.properties.id, shared.SessionIdSchema],
    ['querystring', (s) => s.querystring, shared.HistoryQuerySchema],
    ['200', (s) => s.response?.[200], shared.HistoryPageSchema]
  ]],
  ['POST', '/approvals/call_1', 'POST /approvals/:toolCallId', [
    ['params.toolCallId', (s) => s.params?.properties.toolCallId, shared.ApprovalParamsSchema.properties.toolCallId],
    ['body', (s) => s.body, shared.ApprovalDecisionSchema],
    ['200', (s) => s.response?.[200]?.$ref, shared.ToolApprovalSchema.$id]
  ]],
  ['GET', '/sessions/s_1/run', 'GET /sessions/:id/run', [['200', (s) => s.response?.[200], shared.RunReplySchema]]],
  ['POST', '/delegation', 'POST /delegation', [
    ['body', (s) => s.body, shared.StoreDelegationSchema],
    ['200', (s) => s.response?.[200], shared.StoreDelegationReplySchema]
  ]],
  ['GET', '/delegation', 'GET /delegation', [['200', (s) => s.response?.[200], shared.DelegationStatusSchema]]],
  ['DELETE', '/delegation', 'DELETE /delegation', [['200', (s) => s.response?.[200], shared.RevokeReplySchema]]],
  ['GET', '/models', 'GET /models', [['200', (s) => s.response?.[200], shared.ModelListSchema]]],
  [
    'GET',
    '/user-preferences',
    'GET /user-preferences',
    [['200 (or null)', (s) => s.response?.[200]?.anyOf?.[0], shared.UserPreferencesSchema]]
  ]
]

describe('the runtime serves the wire schemas the client is typed from', () => {
  let harness: Harness
  let app: Harness['app']
  const seen = new Map<string, RouteSchema>()

  beforeAll(async () => {
    harness = await createHarness()
    app = harness.app
    // onSend has run when inject resolves; onResponse may still be pending behind other apps' hooks.
    app.addHook('onSend', async (request, _reply, payload) => {
      seen.set(`${request.method} ${request.routeOptions.url ?? ''}`, request.routeOptions.schema as RouteSchema)
      return payload
    })
    // Unauthenticated calls are refused, but they still reach (and name) the route.
    for (const [method, url] of routes) {
      await app.inject({
        method: method as 'GET',
        url,
        payload: method === 'GET' || method === 'DELETE' ? undefined : {}
      })
    }
  })
  afterAll(async () => { await harness?.close() })

  it('registers the shared $id schemas the routes refer to', () => {
    // Fastify keeps its own copy of a registered schema, so this compares the JSON.
    const json = (schema: unknown) => JSON.parse(JSON.stringify(schema)) as unknown
    expect(json(app.getSchema('ChatSession'))).toEqual(json(shared.ChatSessionSchema))
    expect(json(app.getSchema('MessageDto'))).toEqual(json(shared.MessageDtoSchema))
    expect(json(app.getSchema('ToolApproval'))).toEqual(json(shared.ToolApprovalSchema))
  })

  it.each(routes)('%s %s', (_method, _url, route, parts) => {
    const schema = seen.get(route)
    expect(schema, `${route} was not reached`).toBeDefined()
    for (const [part, pick, expected] of parts) expect(pick(schema!), part).toBe(expected)
  })
})
