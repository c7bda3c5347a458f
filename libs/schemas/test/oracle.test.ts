import { describe, expect, it } from 'vitest'
import { FormatRegistry } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import {
  ActionCallResultSchema,
  ChatSessionSchema,
  DelegationRequiredEventSchema,
  DoneEventSchema,
  HistoryPageSchema,
  OracleEventPayloadSchemas,
  PaymentRequiredSchema,
  SendMessageSchema,
  SOCKET_OPTIONAL_EVENTS,
  SOCKET_SERVER_EVENTS,
  SocketSubscribeSchema,
  SSE_EVENT_NAMES,
  ToolCallEventSchema,
  ToolResultSchema,
  UserPreferencesSchema
} from '../src/index.ts'

// Ajv checks formats on the server; TypeBox's Value needs them registered.
FormatRegistry.Set('date-time', (value) => !Number.isNaN(Date.parse(value)))

describe('oracle wire schemas', () => {
  it('accept the body the SDK sends and refuse unknown keys, blank messages and too many attachments', () => {
    const body = {
      message: 'hello',
      stream: true,
      timezone: 'Europe/Berlin',
      tools: [
        {
          name: 'get_page_title',
          description: 'Title of the open page',
          schema: { $schema: 'http://json-schema.org/draft-07/schema#' }
        }
      ],
      agActions: [{ name: 'show_notice', description: 'Shows a notice', schema: { type: 'object' }, hasRender: true }],
      attachments: [{ mxcUri: 'mxc://example.org/abc', filename: 'a.png', mimetype: 'image/png', size: 12 }]
    }
    expect(Value.Check(SendMessageSchema, body)).toBe(true)
    expect(Value.Check(SendMessageSchema, { ...body, extra: 1 })).toBe(false)
    expect(Value.Check(SendMessageSchema, { message: '   ' })).toBe(false)
    expect(
      Value.Check(SendMessageSchema, {
        message: 'x',
        attachments: Array.from({ length: 11 }, () => body.attachments[0])
      })
    ).toBe(false)
  })

  it('describe sessions, history pages, preferences and the 402 body', () => {
    const now = new Date().toISOString()
    expect(
      Value.Check(ChatSessionSchema, {
        sessionId: 's_1',
        title: 'New chat',
        createdAt: now,
        lastUpdatedAt: now,
        oracleName: 'Oracle',
        oracleDid: 'did:key:z6Mkabc'
      })
    ).toBe(true)
    expect(
      Value.Check(HistoryPageSchema, {
        messages: [],
        prevCursor: null,
        nextCursor: null,
        hasOlder: false,
        hasNewer: false
      })
    ).toBe(true)
    expect(Value.Check(UserPreferencesSchema, { formality: 'formal', agentName: 'Ava' })).toBe(true)
    expect(Value.Check(UserPreferencesSchema, { formality: 'rude' })).toBe(false)
    expect(
      Value.Check(PaymentRequiredSchema, {
        statusCode: 402,
        error: 'Payment Required',
        message: 'Pay',
        claims: ['c1'],
        outstandingClaims: ['c1']
      })
    ).toBe(true)
  })

  it('describe the streamed frames of the wire notes, with room for extra fields', () => {
    expect(SSE_EVENT_NAMES.every((name) => name in OracleEventPayloadSchemas)).toBe(true)
    const running = {
      sessionId: 'S',
      requestId: 'R',
      toolName: 'get_weather',
      args: { city: 'Paris' },
      status: 'isRunning',
      eventId: 'call_1'
    }
    expect(Value.Check(ToolCallEventSchema, running)).toBe(true)
    expect(Value.Check(ToolCallEventSchema, { ...running, status: 'done', output: '22C', extra: true })).toBe(true)
    expect(Value.Check(ToolCallEventSchema, { ...running, status: 'pending' })).toBe(false)
    expect(Value.Check(DoneEventSchema, {})).toBe(true)
    const prompt = {
      sessionId: 'S',
      requestId: 'R',
      error: 'Authorise the oracle for domain/create',
      kind: 'delegation_required',
      status: 403,
      retryable: true,
      detail: { ability: 'domain/create', reason: 'not_granted', oracleDid: 'did:key:z6Mk' }
    }
    expect(Value.Check(OracleEventPayloadSchemas.error, prompt)).toBe(true)
    expect(Value.Check(DelegationRequiredEventSchema, prompt)).toBe(true)
    expect(Value.Check(DelegationRequiredEventSchema, { ...prompt, kind: 'upstream' })).toBe(false)
    expect(Value.Check(ToolResultSchema, { toolCallId: 'c', sessionId: 's', result: null, error: 'boom' })).toBe(true)
    expect(Value.Check(ToolResultSchema, { sessionId: 's', result: 1 })).toBe(false)
  })

  it('accept the socket results older SDKs send: no sessionId or result, error null', () => {
    for (const schema of [ToolResultSchema, ActionCallResultSchema]) {
      expect(Value.Check(schema, { toolCallId: 'c', error: null })).toBe(true)
      expect(Value.Check(schema, { toolCallId: 'c', result: { success: true }, timestamp: 'extra keys pass' })).toBe(
        true
      )
      expect(Value.Check(schema, { toolCallId: '', result: 1 })).toBe(false)
      expect(Value.Check(schema, { toolCallId: 'c', error: 'x'.repeat(10_001) })).toBe(false)
    }
    expect(Value.Check(SocketSubscribeSchema, {})).toBe(true)
    expect(Value.Check(SocketSubscribeSchema, { sessionId: 's_1', events: ['reasoning'] })).toBe(true)
    expect(Value.Check(SocketSubscribeSchema, { events: Array.from({ length: 17 }, () => 'reasoning') })).toBe(false)
    expect(SOCKET_SERVER_EVENTS).toEqual(
      expect.arrayContaining([...SOCKET_OPTIONAL_EVENTS, 'error', 'approval_request', 'delegation_required']))
  })
})
