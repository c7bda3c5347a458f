import { Type, type Static } from '@sinclair/typebox'

export const ErrorDetailSchema = Type.Object({
  field: Type.String({ description: 'JSON pointer or name of the offending field' }),
  message: Type.String()
})

/**
 * The one JSON error body of the platform's JSON APIs. `statusCode` repeats the HTTP status in
 * the body because clients (the oracle SDK among them) read it from there; 5xx messages are
 * always generic.
 */
export const ErrorBodySchema = Type.Object({
  statusCode: Type.Integer({ minimum: 400, maximum: 599 }),
  error: Type.String({ description: 'HTTP reason phrase' }),
  message: Type.String(),
  code: Type.Optional(Type.String({ description: 'Stable machine-readable error code' })),
  details: Type.Optional(Type.Array(ErrorDetailSchema))
}, { $id: 'ErrorBody', additionalProperties: true })
export type ErrorBody = Static<typeof ErrorBodySchema>
