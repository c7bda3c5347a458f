import { Type } from '@sinclair/typebox'
import { DidSchema } from '@impact/schemas'
import { staticBearerGuard, type App } from '@impact/service-kit'
import type { Kysely } from 'kysely'
import type { Config } from '../../config.ts'
import { addCredits, ensureAccount, outstandingClaims, settleClaim } from '../../db/repositories/credits.ts'
import type { DB } from '../../db/types.ts'
import { ClaimNotFoundError } from '../../errors.ts'
import { callerDid } from '../../plugins/ucan-auth.ts'

const ClaimSchema = Type.Object({
  claimId: Type.String(),
  amount: Type.Integer(),
  status: Type.String(),
  createdAt: Type.String({ format: 'date-time' })
})
const AccountSchema = Type.Object({
  did: Type.String(),
  balance: Type.Integer(),
  costPerMessage: Type.Integer(),
  outstandingClaims: Type.Array(ClaimSchema)
})
const errors = { 400: Type.Ref('ErrorBody'), 401: Type.Ref('ErrorBody'), 404: Type.Ref('ErrorBody') }

/** Operator routes (outside UCAN auth, behind CREDITS_ADMIN_TOKEN). */
export const OPERATOR_ROUTES = [
  'POST /credits/grants',
  'POST /credits/claims/:claimId/settle',
  'GET /credits/accounts/:did'
]

export function creditRoutes (db: Kysely<DB>, config: Config) {
  const account = async (did: string) => ({
    did,
    balance: await ensureAccount(db, did, config.CREDITS_INITIAL_GRANT),
    costPerMessage: config.CREDITS_PER_MESSAGE,
    outstandingClaims: await outstandingClaims(db, did)
  })
  return async function routes (app: App) {
    app.get(
      '/credits',
      {
        schema: {
          tags: ['credits'],
          summary: "The caller's credit balance and outstanding payment claims",
          security: [{ ucanInvocation: [] }],
          response: { 200: AccountSchema, 401: Type.Ref('ErrorBody') }
        }
      },
      async (request) => await account(callerDid(request))
    )

    const operator = staticBearerGuard([config.CREDITS_ADMIN_TOKEN as string])
    app.post(
      '/credits/grants',
      {
        preHandler: operator,
        schema: {
          tags: ['credits'],
          summary: 'Operator: add credits to a user (Authorization: Bearer CREDITS_ADMIN_TOKEN)',
          security: [{ operatorToken: [] }],
          body: Type.Object(
            {
              did: DidSchema,
              amount: Type.Integer({ minimum: 1, maximum: 1_000_000_000 }),
              reason: Type.Optional(Type.String({ minLength: 1, maxLength: 200 }))
            },
            { additionalProperties: false }
          ),
          response: { 200: Type.Object({ did: Type.String(), balance: Type.Integer() }), ...errors }
        }
      },
      async (request) => {
        const { did, amount, reason } = request.body
        await ensureAccount(db, did, config.CREDITS_INITIAL_GRANT)
        return { did, balance: await addCredits(db, did, amount, reason ?? 'operator grant', null) }
      }
    )

    app.post(
      '/credits/claims/:claimId/settle',
      {
        preHandler: operator,
        schema: {
          tags: ['credits'],
          summary: 'Operator: mark a payment claim paid and credit its amount (idempotent)',
          security: [{ operatorToken: [] }],
          params: Type.Object({ claimId: Type.String({ minLength: 1, maxLength: 200 }) }),
          response: {
            200: Type.Object({
              claimId: Type.String(),
              did: Type.String(),
              amount: Type.Integer(),
              status: Type.Literal('paid'),
              balance: Type.Integer()
            }),
            ...errors
          }
        }
      },
      async (request) => {
        const settled = await settleClaim(db, request.params.claimId)
        if (settled === undefined) throw new ClaimNotFoundError()
        return { ...settled, status: 'paid' as const }
      }
    )

    app.get(
      '/credits/accounts/:did',
      {
        preHandler: operator,
        schema: {
          tags: ['credits'],
          summary: "Operator: a user's balance and outstanding claims",
          security: [{ operatorToken: [] }],
          params: Type.Object({ did: DidSchema }),
          response: { 200: AccountSchema, ...errors }
        }
      },
      async (request) => await account(request.params.did)
    )
  }
}
