import { Type, type Static } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { FastifyPluginAsyncTypebox } from '@impact/service-kit'
import type { FastifyError, preHandlerAsyncHookHandler } from 'fastify'
import { ussdErrorReply } from '../../errors.ts'
import { normalisePhone, PHONE_INPUT_PATTERN, SessionIdSchema, ussdText } from '../../schemas/ussd.ts'
import { shortcutInputs } from '../../services/cumulative-text.ts'
import type { UssdEngine } from '../../services/ussd-engine.ts'

/** Hubtel Programmable Services request (USSD channel): latest input only, with a sequence number. */
export const HubtelRequestSchema = Type.Object({
  Type: Type.String({
    pattern: '^([Ii]nitiation|[Rr]esponse|[Rr]elease|[Tt]imeout)$',
    description: 'initiation | response | release | timeout'
  }),
  Mobile: Type.String({ pattern: PHONE_INPUT_PATTERN, description: 'Phone number, usually without + (233…)' }),
  SessionId: SessionIdSchema,
  ServiceCode: Type.String({
    minLength: 1,
    maxLength: 64,
    pattern: '^[\\x21-\\x7e]+$',
    description: 'Dialled code (711*2, *711*2#) or service id'
  }),
  Message: ussdText('Latest input; on initiation the full dial string (*711*2*3#)'),
  Sequence: Type.Integer({ minimum: 1, description: 'Request number within the session (retries repeat it)' }),
  Operator: Type.Optional(Type.String({ maxLength: 32 })),
  ClientState: Type.Optional(Type.String({ maxLength: 256 })),
  Platform: Type.Optional(Type.String({ maxLength: 32 }))
}, { additionalProperties: true })
type HubtelRequest = Static<typeof HubtelRequestSchema>

export const HubtelReplySchema = Type.Object({
  SessionId: Type.Optional(Type.String()),
  Type: Type.Union([Type.Literal('response'), Type.Literal('release')]),
  Message: Type.String(),
  Label: Type.String(),
  ClientState: Type.String(),
  DataType: Type.Union([Type.Literal('input'), Type.Literal('display')]),
  FieldType: Type.Literal('text')
})
type HubtelReply = Static<typeof HubtelReplySchema>

const hubtelReply = (sessionId: string | undefined, end: boolean, message: string): HubtelReply => ({
  ...(sessionId !== undefined ? { SessionId: sessionId } : {}),
  Type: end ? 'release' : 'response',
  Message: message,
  Label: message.split('\n')[0] ?? '',
  ClientState: '',
  DataType: end ? 'display' : 'input',
  FieldType: 'text'
})

/** `711*2`, `*711*2#` → `*711*2#`; service ids (not a code) → undefined. */
const baseCode = (serviceCode: string) => {
  const digits = serviceCode.replace(/^\*/, '').replace(/#$/, '')
  return /^\d+(\*\d+)*$/.test(digits) ? `*${digits}#` : undefined
}

/** Inputs of an initiation dial string beyond the service code (`*711*2*3#` on `711*2` → `3`). */
function initiationShortcut (body: HubtelRequest): string[] {
  const base = baseCode(body.ServiceCode)
  return base === undefined || !/^\*\d+(\*\d+)*#$/.test(body.Message) ? [] : shortcutInputs(body.Message, [base], '')
}

export interface HubtelRoutesOptions {
  engine: UssdEngine
  /** The scope's per-IP rate limit (plugins/rate-limit.ts): the same counters as `/api/ussd`. */
  limitIp: preHandlerAsyncHookHandler
  /** The per-phone rate limit, shared with `/api/ussd`. */
  limitPhone: preHandlerAsyncHookHandler
}

/**
 * `POST /api/ussd/hubtel`: the Hubtel adapter. Hubtel sends only the latest input, so the session
 * keeps the route; retries repeat `Sequence` and replay the stored reply. Same state machine,
 * sessions and limits as `/api/ussd`; failures are answered as a `release` with the END text.
 */
export const hubtelRoutes: FastifyPluginAsyncTypebox<HubtelRoutesOptions> = async (app, options) => {
  const { engine, limitIp, limitPhone } = options
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const { statusCode, message } = ussdErrorReply(error, request)
    // The body may not have passed validation (a refused or rate-limited request): only a well-formed id is echoed.
    const sessionId = (request.body as Partial<HubtelRequest> | undefined)?.SessionId
    const named = Value.Check(SessionIdSchema, sessionId) ? sessionId : undefined
    return reply.code(statusCode).send(hubtelReply(named, true, message))
  })

  app.post('/hubtel', {
    // The per-IP limit runs once the body is parsed, so its 429 can name the session (not on arrival,
    // as on the scope's other routes); before validation, so invalid bodies are counted too.
    config: { rateLimit: false },
    preValidation: limitIp,
    preHandler: limitPhone,
    schema: {
      tags: ['ussd'],
      summary: 'One hop of a USSD session (Hubtel Programmable Services shape)',
      body: HubtelRequestSchema,
      response: { 200: HubtelReplySchema, 429: HubtelReplySchema }
    },
  }, async (request) => {
    const body = request.body
    const phoneNumber = normalisePhone(body.Mobile)
    const type = body.Type.toLowerCase()
    if (type === 'release' || type === 'timeout') {
      await engine.end(body.SessionId, phoneNumber, { reason: type === 'timeout' ? 'timeout' : 'user' })
      return hubtelReply(body.SessionId, true, '')
    }
    const initiation = type === 'initiation'
    const result = await engine.hop({
      sessionId: body.SessionId,
      phoneNumber,
      serviceCode: baseCode(body.ServiceCode) ?? body.ServiceCode,
      networkCode: body.Operator,
      latest: {
        input: body.Message,
        sequence: body.Sequence,
        initiation,
        shortcut: initiation ? initiationShortcut(body) : []
      }
    })
    return hubtelReply(body.SessionId, result.end, result.message)
  })
}
