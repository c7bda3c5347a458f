import { Type } from '@sinclair/typebox'

/** GraphQL over HTTP: the answer's shape (https://spec.graphql.org/October2021/#sec-Response-Format). */

export const GraphqlErrorSchema = Type.Object({
  message: Type.String(),
  locations: Type.Optional(Type.Array(Type.Object({ line: Type.Integer(), column: Type.Integer() }))),
  path: Type.Optional(Type.Array(Type.Union([Type.String(), Type.Integer()]))),
  extensions: Type.Optional(Type.Object({
    code: Type.String({
      description: 'domain-api error code: DOMAIN_NOT_FOUND, DOMAIN_PROPOSAL_NOT_FOUND, DOMAIN_INVALID_CURSOR, ' +
        'DOMAIN_INVALID_REQUEST, DOMAIN_GRAPHQL_INVALID (syntax, unknown field, bad variables), ' +
        'DOMAIN_GRAPHQL_TOO_COMPLEX (depth, page size or cost over the limits), SERVICE_UNAVAILABLE…'
    })
  }, { additionalProperties: true }))
})

export const GraphqlResponseSchema = Type.Object({
  data: Type.Optional(Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()])),
  errors: Type.Optional(Type.Array(GraphqlErrorSchema))
}, {
  description: 'data, with errors for the fields that failed (an unknown domain is null plus DOMAIN_NOT_FOUND)'
})

export const GraphqlRequestErrorSchema = Type.Object({
  errors: Type.Array(GraphqlErrorSchema)
}, {
  description: 'The query did not run: it does not parse or validate, its variables are wrong, or it is over the limits'
})
