import { Type } from '@sinclair/typebox'
import {
  AbortBodySchema,
  AbortReplySchema,
  LegacyHistorySchema,
  PaymentRequiredSchema,
  SendMessageReplySchema,
  SendMessageSchema,
  type SendMessage
} from '@impact/schemas'
import type { FastifyPluginAsyncTypebox } from '@impact/service-kit'
import type { Kysely } from 'kysely'
import type { Config } from '../../config.ts'
import { recentMessages, toDto } from '../../db/repositories/messages.ts'
import { findSession } from '../../db/repositories/sessions.ts'
import {
  InvalidTimezoneError,
  SessionNotFoundError,
  TurnInProgressError,
  UnknownModelError,
  UpstreamFailedError
} from '../../errors.ts'
import { SessionParamsSchema } from '../../schemas/session-params.ts'
import { protectedSchema } from '../../schemas/security.ts'
import type { DB } from '../../db/types.ts'
import type { Approvals } from '../../services/approvals.ts'
import type { EventBus, RuntimeEventName } from '../../services/event-bus.ts'
import type { OracleIdentity } from '../../services/oracle-identity.ts'
import type { TurnRegistry } from '../../services/turn-registry.ts'
import { CONTEXT_MESSAGES, type ExecuteTurn } from '../../services/turn-service.ts'
import { callerDid } from '../../plugins/ucan-auth.ts'
import { callersSession } from '../callers-session.ts'
import { openSse } from './sse.ts'

/** Events an SSE client understands (oracle-wire §3.2); the socket-only ones stay on the bus. */
const SSE_EVENTS: Partial<Record<RuntimeEventName, string>> = {
  message: 'message',
  reasoning: 'reasoning',
  tool_call: 'tool_call',
  action_call: 'action_call',
  router_update: 'router.update',
  approval_request: 'approval_request',
  error: 'error',
  done: 'done'
}
const LEGACY_HISTORY_LIMIT = 1000

const validTimezone = (zone: string) => {
  try {
    Intl.DateTimeFormat('en', { timeZone: zone })
    return true
  } catch {
    return false
  }
}

export interface MessageRoutesOptions {
  db: Kysely<DB>
  identity: Pick<OracleIdentity, 'did'>
  config: Pick<Config, 'SSE_HEARTBEAT_MS'>
  /** Model ids clients may choose; the first is the default. */
  models: string[]
  turns: Pick<TurnRegistry, 'begin' | 'abort'>
  /** Where a streamed turn's events come from. */
  bus: Pick<EventBus, 'subscribe'>
  executeTurn: ExecuteTurn
  /** The legacy history lists the session's pending approvals too. */
  approvals: Pick<Approvals, 'pending'>
  /** Hears of SSE streams opening and closing (metrics). */
  sseStreams?: { opened: () => void, closed: () => void }
}

export const messageRoutes: FastifyPluginAsyncTypebox<MessageRoutesOptions> = async (app, options) => {
  const { db, identity, config, models, turns, bus, executeTurn, approvals } = options

  app.post('/messages/:sessionId', {
    schema: protectedSchema('messages', {
      summary: 'Send a message: a JSON reply, or with `stream: true` an SSE stream ' +
        '(message, reasoning, tool_call, action_call, error, done)',
      params: SessionParamsSchema,
      body: SendMessageSchema,
      response: {
        200: SendMessageReplySchema,
        400: Type.Ref('ErrorBody'),
        402: PaymentRequiredSchema,
        404: Type.Ref('ErrorBody'),
        409: Type.Ref('ErrorBody'),
        502: Type.Ref('ErrorBody')
      }
    })
  }, async (request, reply) => {
    const did = callerDid(request)
    const { sessionId } = request.params
    const body: SendMessage = request.body
    const model = body.model ?? models[0] as string
    if (!models.includes(model)) throw new UnknownModelError(model)
    const zoneHeader = request.headers['x-timezone']
    const headerZone = typeof zoneHeader === 'string' && validTimezone(zoneHeader) ? zoneHeader : undefined
    if (body.timezone !== undefined && !validTimezone(body.timezone)) throw new InvalidTimezoneError(body.timezone)
    const requestId = body.requestId ?? request.id
    // Lease first, then read the session and its history in one go: the lease makes the history
    // read consistent, and a lease taken on someone else's session is dropped right away.
    const turn = await turns.begin(sessionId, did, requestId)
    if (turn === undefined) {
      if (await findSession(db, did, sessionId, identity.did) === undefined) throw new SessionNotFoundError()
      throw new TurnInProgressError()
    }
    let session, history
    try {
      [session, history] = await Promise.all([
        findSession(db, did, sessionId, identity.did),
        recentMessages(db, sessionId, CONTEXT_MESSAGES)
      ])
    } catch (error) {
      await turn.end()
      throw error
    }
    if (session === undefined) {
      await turn.end()
      throw new SessionNotFoundError()
    }

    const turnRequest = {
      did,
      sessionId,
      requestId,
      message: body.message,
      model,
      timezone: body.timezone ?? headerZone,
      browserTools: body.tools ?? [],
      actions: body.agActions ?? [],
      ...(body.attachments !== undefined ? { attachments: body.attachments } : {}),
      ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
      ...(body.mcpInvocations !== undefined ? { mcpInvocations: body.mcpInvocations } : {}),
      firstMessage: session.title === 'New chat',
      history
    }

    if (body.stream === true) {
      const sse = openSse(request, reply, { requestId, heartbeatMs: config.SSE_HEARTBEAT_MS })
      const streams = options.sseStreams
      if (streams !== undefined) {
        streams.opened()
        reply.raw.once('close', streams.closed)
      }
      // `done` tells the client it may send its next message, so it goes out only once the
      // session's turn lease is released; sent earlier, a prompt next message would get a 409.
      let done: Record<string, unknown> | undefined
      // Request ids may come from the client: the session pins the stream to this caller's turn.
      const unsubscribe = bus.subscribe({ sessionId, requestId }, (event) => {
        if (event.name === 'done') {
          done = event.data
          return
        }
        const name = SSE_EVENTS[event.name]
        if (name !== undefined) sse.send(name, event.data)
      })
      // A turn waiting for the user's approval outlives its stream: the user may answer from a reconnected page.
      sse.onDisconnect(() => { if (!turn.awaitingUser) turn.cancel('disconnected') })
      try {
        await executeTurn(turnRequest, turn)
      } catch (err) {
        request.log.error({ err }, 'turn failed')
        sse.send('error', {
          error: 'The oracle failed to answer',
          kind: 'internal',
          sessionId,
          requestId,
          timestamp: new Date().toISOString()
        })
        done = { failed: true }
      } finally {
        unsubscribe()
        await turn.end()
        sse.send('done', done ?? {})
        sse.end()
      }
      return reply
    }

    let report
    try {
      report = await executeTurn(turnRequest, turn)
    } finally {
      await turn.end()
    }
    const { result, stored } = report
    if (report.sessionGone) throw new SessionNotFoundError()
    if (result.outcome === 'failed') throw new UpstreamFailedError(result.error?.message ?? 'unknown error')
    const transcript = body.returnAllMessages === true
      ? (await recentMessages(db, sessionId, LEGACY_HISTORY_LIMIT)).map(toDto)
      : undefined
    return {
      message: { type: 'ai' as const, content: result.content, id: stored?.id ?? requestId },
      sessionId,
      requestId,
      ...(result.outcome === 'aborted' ? { aborted: true } : {}),
      ...(transcript !== undefined ? { messages: transcript } : {})
    }
  })

  app.get('/messages/:sessionId', {
    schema: protectedSchema('messages', {
      summary: 'The whole transcript of a session (legacy history; newest 1000 messages) and its pending approvals',
      params: SessionParamsSchema,
      response: { 200: LegacyHistorySchema, 404: Type.Ref('ErrorBody') }
    })
  }, async (request) => {
    const session = await callersSession(db, identity.did, request, request.params.sessionId)
    const [messages, pendingApprovals] = await Promise.all([
      recentMessages(db, session.sessionId, LEGACY_HISTORY_LIMIT),
      approvals.pending(session.sessionId)
    ])
    return { messages: messages.map(toDto), pendingApprovals }
  })

  app.post('/messages/abort', {
    schema: protectedSchema('messages', {
      summary: 'Abort the caller\'s in-flight answer in a session, on whichever replica it runs',
      body: AbortBodySchema,
      response: { 200: AbortReplySchema, 400: Type.Ref('ErrorBody'), 404: Type.Ref('ErrorBody') }
    })
  }, async (request) => {
    const session = await callersSession(db, identity.did, request, request.body.sessionId)
    return { success: await turns.abort(session.sessionId, callerDid(request)) }
  })
}
