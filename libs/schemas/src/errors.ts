import { Type, type Static } from '@sinclair/typebox'

export const ErrorDetailSchema = Type.Object({
  field: Type.String({ description: 'JSON pointer or name of the offending field' }),
  message: Type.String()
})

/** The platform's one JSON error body; `statusCode` repeats the HTTP status because clients (the SDK) read it. */
export const ErrorBodySchema = Type.Object({
  statusCode: Type.Integer({ minimum: 400, maximum: 599 }),
  error: Type.String({ description: 'HTTP reason phrase' }),
  message: Type.String(),
  code: Type.Optional(Type.String({ description: 'Stable machine-readable error code' })),
  details: Type.Optional(Type.Array(ErrorDetailSchema))
}, { $id: 'ErrorBody', additionalProperties: true })
export type ErrorBody = Static<typeof ErrorBodySchema>
