import { Type, type Static } from '@sinclair/typebox'
import { PhoneNumberSchema } from '@impact/schemas'

/** `*<digits>#`, `*<digits>*<digits>#` and deeper. */
export const SERVICE_CODE_PATTERN = '^\\*\\d+(\\*\\d+)*#$'
/** E.164 with or without the `+` (some aggregators drop it, form decoding turns it into a space). */
export const PHONE_INPUT_PATTERN = '^[+ ]?[1-9][0-9]{6,14}$'
export const MAX_TEXT = 182
/** Any text but U+FFFF, the PIN mask of kept texts: typed in, it would match any later input. */
const TEXT_PATTERN = '^[^\\uffff]*$'

/** What a user typed, as an aggregator forwards it: at most 182 characters, no U+FFFF. */
export const ussdText = (description: string, examples?: string[]) =>
  Type.String({
    maxLength: MAX_TEXT,
    pattern: TEXT_PATTERN,
    description,
    ...(examples !== undefined ? { examples } : {})
  })

export const SessionIdSchema = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[\\x21-\\x7e]+$',
  description: 'Aggregator-assigned session id (printable ASCII, at most 100 characters)'
})

/** The Africa's Talking request, as JSON or form body; unknown fields are accepted and ignored. */
export const UssdRequestSchema = Type.Object(
  {
    sessionId: SessionIdSchema,
    serviceCode: Type.String({
      pattern: SERVICE_CODE_PATTERN,
      maxLength: 64,
      description: 'Dialled code, e.g. *384*123#',
      examples: ['*384*123#']
    }),
    phoneNumber: Type.String({
      pattern: PHONE_INPUT_PATTERN,
      description: 'E.164 phone number; the + may be omitted',
      examples: ['+254712345678']
    }),
    text: ussdText('Cumulative input joined with *; empty on the first request', ['', '1', '2*2*Jane Doe']),
    networkCode: Type.Optional(
      Type.String({
        maxLength: 16,
        description: "MCC+MNC of the subscriber's network (Africa's Talking), kept with the session",
        examples: ['63902']
      })
    )
  },
  { additionalProperties: true }
)
export type UssdRequest = Static<typeof UssdRequestSchema>

export const UssdTextReplySchema = Type.String({
  description: '`CON <menu>` (the session continues) or `END <message>` (it is over); at most 182 GSM-7 characters',
  examples: ['CON Welcome to Impact Platform\n1. Know More\n2. Account\n3. Language/Lugha\n*. Exit']
})

/** The end-of-session notification; `phoneNumber` is required so a leaked session id cannot end a dialogue. */
export const UssdEventSchema = Type.Object({
  sessionId: SessionIdSchema,
  phoneNumber: Type.String({ pattern: PHONE_INPUT_PATTERN }),
  status: Type.Optional(Type.String({ maxLength: 32, description: 'Success | Incomplete | Failed' })),
  cost: Type.Optional(Type.String({ maxLength: 32, description: 'What the session cost, e.g. KES 0.0000' })),
  serviceCode: Type.Optional(Type.String({ maxLength: 64 })),
  networkCode: Type.Optional(Type.String({ maxLength: 16 })),
  durationInMillis: Type.Optional(Type.String({ maxLength: 16 })),
  hopsCount: Type.Optional(Type.String({ maxLength: 16 })),
  errorMessage: Type.Optional(Type.String({ maxLength: 500 }))
}, { additionalProperties: true })

export const UssdEventReplySchema = Type.Object({ received: Type.Literal(true) })

export const DebugRecordSchema = Type.Object({
  sessionId: Type.String(),
  debugInfo: Type.Object({
    state: Type.String({ description: 'Current state of the session machine, e.g. preMenu' }),
    context: Type.Object({
      sessionId: Type.String(),
      phoneNumber: PhoneNumberSchema,
      message: Type.String({
        description:
          'Last screen sent (without CON/END); `(withheld: a logged-in screen)` once logged in, as those screens ' +
            'show the account'
      }),
      isAuthenticated: Type.Boolean()
    }),
    status: Type.Literal('active')
  }),
  activeSessions: Type.Array(Type.String())
})

export const SessionListSchema = Type.Object({
  activeSessions: Type.Array(Type.String()),
  count: Type.Integer({ minimum: 0 })
})

const PLUS = 43
const SPACE = 32

/** `+<digits>` from an accepted phone input (idempotent). */
export function normalisePhone (value: string): string {
  const first = value.charCodeAt(0)
  if (first === PLUS) return value
  return first === SPACE ? `+${value.slice(1)}` : `+${value}`
}

/** Support's PIN reset: the temporary PIN to hand to the user, and until when it is good. */
export const PinResetSchema = Type.Object({
  customerId: Type.String({ examples: ['C1A2B3C4D'] }),
  temporaryPin: Type.String({
    pattern: '^\\d{5}$',
    description: 'Give it to the user only; at login it leads to choosing a new PIN'
  }),
  expiresAt: Type.String({ format: 'date-time' }),
  smsQueued: Type.Boolean({
    description: 'True when the temporary PIN was also queued as an SMS to the account\'s registered phone (SMS on)'
  })
})

/** A customer id as a path parameter (case-insensitive: normalised before use). */
export const CustomerIdParamSchema = Type.String({
  pattern: '^[Cc][0-9A-Fa-f]{8}$',
  description: 'Customer id, e.g. C1A2B3C4D'
})

export const RoleSchema = Type.Union([Type.Literal('household'), Type.Literal('agent')], {
  description: '`household`: every account (its own devices, the assistant); `agent`: a field agent, who also ' +
    'registers and checks devices for households'
})

export const RolesSchema = Type.Array(RoleSchema, { minItems: 1, maxItems: 2, uniqueItems: true })

/** An account as operators see it: never its PIN or key. */
export const AccountViewSchema = Type.Object({
  customerId: Type.String({ examples: ['C1A2B3C4D'] }),
  did: Type.Union([
    Type.String({ examples: ['did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK'] }),
    Type.Null()
  ], {
    description: 'The account\'s did:key; null for an account from before identities until its next login'
  }),
  roles: RolesSchema,
  language: Type.Union([Type.Literal('en'), Type.Literal('sw')], {
    description: 'Language chosen on the account\'s registered phone (en when never chosen)'
  }),
  createdAt: Type.String({ format: 'date-time' }),
  locked: Type.Boolean({ description: 'Locked after wrong PINs, until its cool-down ends or support resets the PIN' })
})

export const SetRolesSchema = Type.Object({ roles: RolesSchema }, { additionalProperties: false })

const Count = (description: string) => Type.Integer({ minimum: 0, description })

/** Ended sessions split by how they ended. */
const EndedCountsSchema = {
  end: Count('Ended by the gateway\'s END (a final screen, goodbye, lockout, refusal)'),
  user: Count('Ended by the aggregator\'s notice while live: the user hung up or cancelled, or the network dropped it'),
  timeout: Count('Expired after USSD_SESSION_TTL_SECONDS without input (or Hubtel\'s timeout notice)')
}

export const DropOffQuerySchema = Type.Object({
  date: Type.String({
    pattern: '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$',
    description: 'The day (UTC) the sessions ended, YYYY-MM-DD',
    examples: ['2026-12-14']
  }),
  serviceCode: Type.Optional(Type.String({
    pattern: SERVICE_CODE_PATTERN,
    maxLength: 64,
    description: 'Only the sessions of this service code (a programme), e.g. *384#'
  }))
}, { additionalProperties: false })

export const DropOffReportSchema = Type.Object({
  date: Type.String({ examples: ['2026-12-14'] }),
  serviceCode: Type.Union([Type.String(), Type.Null()], {
    description: 'The filter asked for, or null for every code'
  }),
  sessions: Count('Sessions that ended that day'),
  ...EndedCountsSchema,
  screens: Type.Array(Type.Object({
    state: Type.String({
      description: 'The screen (state name) the sessions were on when they ended',
      examples: ['loginPin']
    }),
    sessions: Count('Sessions that ended on this screen'),
    ...EndedCountsSchema
  }), { description: 'One entry per screen, most sessions first' })
})

export const SessionRecordsSchema = Type.Object({
  sessionId: Type.String(),
  records: Type.Array(Type.Object({
    serviceCode: Type.String({ examples: ['*384#'] }),
    networkCode: Type.Union([Type.String(), Type.Null()], { examples: ['63902'] }),
    hops: Count('Requests answered, retries included'),
    lastState: Type.String({ description: 'The screen (state name) it ended on', examples: ['loginPin'] }),
    endReason: Type.Union([Type.Literal('end'), Type.Literal('user'), Type.Literal('timeout')]),
    startedAt: Type.String({ format: 'date-time' }),
    endedAt: Type.String({ format: 'date-time' }),
    durationMs: Count('From the first hop to the END or notice; to the last hop for a timeout'),
    aggregatorStatus: Type.Union([Type.String(), Type.Null()], {
      description: 'From the end-of-session notification (Success, Incomplete, Failed); null until it arrives'
    }),
    aggregatorCost: Type.Union([Type.String(), Type.Null()], { examples: ['KES 0.0500'] })
  }), { description: 'Latest first; an id an aggregator reused has several' })
})
